import { holdTheStack } from './holds-the-stack';

holdTheStack('second', 'teardown');
