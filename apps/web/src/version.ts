/** The `cv` query parameter of every request. */
export const CLIENT_VERSION: string = typeof __POLYVOX_CLIENT_VERSION__ === 'string' ? __POLYVOX_CLIENT_VERSION__ : '0.0.0-dev';
