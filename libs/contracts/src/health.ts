/** GET /api/health: 200 when both are up, 503 (same data) when either is down. */
export interface HealthReport {
  database: 'up' | 'down';
  redis: 'up' | 'down';
}
