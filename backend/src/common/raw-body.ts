import type { Request } from 'express';

/** A request whose body was also kept as it came (a signed webhook's signature is over those bytes). */
export interface RawBodyRequest extends Request {
  rawBody?: Buffer;
}
