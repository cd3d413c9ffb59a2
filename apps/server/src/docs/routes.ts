import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorBody } from '@polyvox/contracts';
import { AppError } from '../platform/errors.js';
import { serverRoot } from '../platform/paths.js';

const DOCS = ['terms', 'privacy', 'updates'] as const;
const dir = path.join(serverRoot, 'content/docs');

const DocResponse = z.object({ name: z.string(), title: z.string(), content: z.string(), updated_at: z.string() });

/** Terms, privacy and release notes are Markdown files, one per language (name.lang.md, English as fallback). */
export const docRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/docs/:name',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['documents'],
        summary: 'A site document in Markdown',
        params: z.object({ name: z.string() }),
        querystring: z.object({ private: z.string().optional(), lang: z.string().optional() }).passthrough(),
        response: { 200: DocResponse, 404: ErrorBody },
      },
    },
    async (request) => {
      const name = request.params.name as (typeof DOCS)[number];
      if (!DOCS.includes(name)) throw new AppError('NOT_FOUND');
      const lang = request.query.lang;
      const candidates = [lang && ['zh-CN', 'zh-TW'].includes(lang) ? `${name}.${lang}.md` : null, `${name}.md`].filter(
        Boolean,
      ) as string[];
      for (const file of candidates) {
        const full = path.join(dir, file);
        const content = await fs.readFile(full, 'utf8').catch(() => null);
        if (content === null) continue;
        const stat = await fs.stat(full);
        const title = /^#\s+(.+)$/m.exec(content)?.[1]?.trim() ?? name;
        return { name, title, content, updated_at: stat.mtime.toISOString() };
      }
      throw new AppError('NOT_FOUND');
    },
  );
};
