import { holdTheStack } from './holds-the-stack';

holdTheStack('first');
