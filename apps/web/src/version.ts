/**
 * The `cv` query parameter of every request: the console release the server sees, the seed's
 * numbering (v-prefixed), raised with each console release.
 */
export const CLIENT_VERSION = 'v1.1.4';
