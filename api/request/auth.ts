import type { NextFunction, Request, Response } from 'express';
import type { ApiKeyRecord, ApiKeyStore } from '../../services/auth/api-keys';
import { unauthorized } from './problem';

declare module 'express-serve-static-core' {
  interface Request {
    apiKey?: ApiKeyRecord;
    requestId?: string;
  }
}

/** Bearer authentication (spec "Authentication"): every /v1 request carries an active key. */
export function requireApiKey(store: ApiKeyStore) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    try {
      const header = req.get('authorization');
      if (!header) throw unauthorized('Missing Authorization header; send Authorization: Bearer <API key>');
      const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
      if (!m) throw unauthorized('The Authorization header must use the Bearer scheme: Authorization: Bearer <API key>');
      const rec = await store.verify(m[1]);
      if (!rec) throw unauthorized('The API key is malformed, unknown or revoked');
      req.apiKey = rec;
      next();
    } catch (err) {
      next(err);
    }
  };
}
