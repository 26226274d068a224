/**
 * Reading the order-flow views through the table engine: how a query's hints narrow what is read
 * (planner.ts), a page (page.ts), statistics (statistics.ts) and comprising trades (comprising.ts).
 */
export * from './planner';
export * from './page';
export * from './statistics';
export * from './comprising';
export { viewSegments as orderFlowSessions, viewStamp as orderFlowStamp } from '../../tables/view-state';
