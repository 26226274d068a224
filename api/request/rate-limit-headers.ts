import crypto from 'crypto';

/**
 * The quota headers every counted response carries: the vendor's X-RateLimit-* trio (what
 * clients written for the vendor read) and, beside them, the IETF RateLimit / RateLimit-Policy
 * fields of draft-ietf-httpapi-ratelimit-headers-08.
 */

export interface RateLimitState {
  /** The policy's name: "per-user" or "per-address". */
  policy: string;
  /** The bucket counted against (a user, an address); only its hash is shown. */
  partition: string;
  limit: number;
  windowSeconds: number;
  /** Requests still allowed after this one. */
  remaining: number;
  /** Seconds until the window holds no request: a relative count, not an epoch. */
  resetSeconds: number;
}

/** The partition key of draft-08 (`pk`): a hash, so the header never shows a user name or address. */
function partitionKey(partition: string): string {
  return Buffer.from(crypto.createHash('sha256').update(partition).digest('hex').slice(0, 12)).toString('base64');
}

export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(s.limit),
    'X-RateLimit-Remaining': String(s.remaining),
    'X-RateLimit-Reset': String(s.resetSeconds),
    RateLimit: `"${s.policy}"; r=${s.remaining}; t=${s.resetSeconds}`,
    'RateLimit-Policy': `"${s.policy}"; q=${s.limit}; w=${s.windowSeconds}; pk=:${partitionKey(s.partition)}:`,
  };
}
