/** V8 flags the server runs with in production. */
export const SERVER_NODE_FLAGS: string[];
