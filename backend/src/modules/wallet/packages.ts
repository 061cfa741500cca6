import constants from '@glob/contract/constants.json';
import type { Schemas } from '../../contract/types';

/** The four token packages, as the spec documents them: the API serves them and prices purchases from them. */
export const TOKEN_PACKAGES = constants.tokenPackages as readonly Schemas['TokenPackage'][];
