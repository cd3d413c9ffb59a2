import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../platform/config.js';
import { newId } from '../platform/ids.js';
import { metrics } from '../platform/metrics.js';
import { handleError, registerErrorHandling } from '../http/error-handler.js';
import { closeAfterUnreadBody, JSON_BODY_LIMIT } from '../http/body.js';
import { clientErrorHandler } from '../http/client-errors.js';
import { requestTimeouts } from '../http/security.js';
import { requestId } from '../http/request-id.js';

/** The HTTP server every role starts from: logging, request ids, request metrics, errors. */
export function createServer(config: Config, logStream?: NodeJS.WritableStream): FastifyInstance {
  const app = Fastify({
    logger: logStream
      ? { level: 'info', stream: logStream }
      : config.LOG_LEVEL === 'silent'
        ? false
        : { level: config.LOG_LEVEL },
    // The caller's x-request-id when it is a plain token (a load balancer's), else a new one; on every log line.
    genReqId: requestId,
    // One hop: the client address is the one our proxy saw (the last X-Forwarded-For entry). Trusting
    // every hop would take the first entry, which the client writes itself, and void every per-IP limit.
    trustProxy: config.TRUST_PROXY ? (_address: string, hop: number) => hop === 0 : false,
    bodyLimit: JSON_BODY_LIMIT,
    return503OnClosing: false,
    // The resources open as plugins (composition/resources.ts): migrations or a slow bucket take what they take.
    pluginTimeout: 0,
    ...requestTimeouts(config.REQUEST_TIMEOUT_SECONDS, config.HEADERS_TIMEOUT_SECONDS),
    clientErrorHandler: clientErrorHandler(() => newId('request')),
    // A malformed URL or an over-long path parameter is answered before any hook runs.
    frameworkErrors: (error, request, reply) => handleError(error, request, reply.header('x-request-id', request.id)),
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
  });

  registerErrorHandling(app);
  closeAfterUnreadBody(app);
  return app;
}
