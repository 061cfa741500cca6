import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** Marks an operation that needs no sign-in (the spec says `security: []`). Everything else requires a bearer token. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
