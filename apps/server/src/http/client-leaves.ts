import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Calls `onLeft` once if the client goes away before the whole response is written: the response
 * closes unfinished, or the connection closes (a pipelined reply waiting its turn sees only that).
 */
export function whenClientLeaves(request: FastifyRequest, reply: FastifyReply, onLeft: () => void): void {
  const res = reply.raw;
  const socket = request.raw.socket;
  const stop = () => {
    res.off('finish', stop);
    res.off('close', check);
    socket?.off('close', check);
  };
  function check(): void {
    stop();
    if (!res.writableFinished) onLeft();
  }
  if (res.destroyed || socket?.destroyed) return onLeft();
  res.once('finish', stop);
  res.once('close', check);
  socket?.once('close', check);
}

export function clientLeaves(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  whenClientLeaves(request, reply, () => controller.abort(new Error('client left')));
  return controller.signal;
}

/** Nothing more is sent to a client that left: no error of ours, nothing in the log above info. */
export function abandon(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  request.log.info('client left before the response');
  reply.hijack();
  reply.raw.destroy();
  return reply;
}
