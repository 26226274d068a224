import type { NextFunction, Request, Response } from 'express';
import type { ApiKeyRecord, ApiKeyStore } from '../../services/auth/api-keys';
import { Problem, unauthorized } from './problem';

declare module 'express-serve-static-core' {
  interface Request {
    /** The caller's active key (never the key itself), once identifyCaller accepted it. */
    apiKey?: ApiKeyRecord;
    /** Why the caller is not authenticated; thrown by requireCaller after the quota check. */
    authProblem?: Problem;
    requestId?: string;
  }
}

/**
 * Bearer authentication (spec "Authentication"), in two steps so that the quota can sit between
 * them: identifyCaller works out who is asking (a valid key, or nobody), the quota counts the
 * request against that user or, for nobody, against the client address, and only then does
 * requireCaller refuse the unauthenticated. Failed key guesses therefore use up the address's
 * budget and cannot be made at full speed.
 */
export function identifyCaller(store: ApiKeyStore) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    try {
      const header = req.get('authorization');
      if (!header) {
        req.authProblem = unauthorized('Missing Authorization header; send Authorization: Bearer <API key>');
      } else {
        const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
        if (!m) {
          req.authProblem = unauthorized('The Authorization header must use the Bearer scheme: Authorization: Bearer <API key>');
        } else {
          const rec = await store.verify(m[1]);
          if (rec) req.apiKey = rec;
          else req.authProblem = unauthorized('The API key is malformed, unknown or revoked');
        }
      }
      next();
    } catch (err) {
      next(err); // the key store is unreachable: a 503, not a 401
    }
  };
}

export function requireCaller(req: Request, _res: Response, next: NextFunction): void {
  if (!req.apiKey) throw req.authProblem ?? unauthorized('Missing Authorization header; send Authorization: Bearer <API key>');
  next();
}
