import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliyunProvider, openAiProvider, ProviderUnavailable, type ModerationProvider } from '../../src/moderation/providers.js';
import { fakeAliyunModeration, fakeOpenAiModeration, type FakeProvider } from '../support/moderation-fakes.js';

const FLAG = { 'plan the attack': 'violence', 诈骗话术: 'fraud' };

describe.each([
  {
    name: 'Alibaba Cloud TextModeration',
    fake: () => fakeAliyunModeration('LTAI-test-id', 'test-secret', { flag: FLAG, hang: 'HANG' }),
    make: (url: string, good: boolean) =>
      aliyunProvider({ endpoint: url, accessKeyId: 'LTAI-test-id', accessKeySecret: good ? 'test-secret' : 'wrong-secret' }),
    category: { violence: 'violence', fraud: 'fraud' },
  },
  {
    name: 'OpenAI moderations',
    fake: () => fakeOpenAiModeration('sk-test-moderation', { flag: FLAG, hang: 'HANG' }),
    make: (url: string, good: boolean) => openAiProvider({ baseUrl: url, apiKey: good ? 'sk-test-moderation' : 'sk-wrong' }),
    category: { violence: 'violence', fraud: 'fraud' },
  },
])('$name on its protocol fake', ({ fake, make, category }) => {
  let server: FakeProvider;
  let provider: ModerationProvider;
  beforeAll(async () => {
    server = await fake();
    provider = make(server.url, true);
  });
  afterAll(async () => {
    await server.close();
  });
  const signal = () => AbortSignal.timeout(5000);

  it('passes ordinary text and flags what the provider flags, with its category', async () => {
    expect(await provider.check('The weather in Hangzhou is mild today. 今天杭州天气温和。', signal())).toEqual({
      flagged: false,
    });
    expect(await provider.check('Let us plan the attack for noon.', signal())).toEqual({
      flagged: true,
      category: category.violence,
    });
    expect(await provider.check('这是一套诈骗话术，请照着念。', signal())).toEqual({ flagged: true, category: category.fraud });
    // Unicode, quotes and characters the signature's encoding treats apart reach the provider intact.
    const odd = "It's (almost) *done* ~ 100% — naïve café; a+b=c & d!";
    expect(await provider.check(odd, signal())).toEqual({ flagged: false });
    expect(server.seen.at(-1)).toBe(odd);
    expect(server.refused).toBe(0);
  });

  it('a wrong key or signature is refused by the fake and is "unavailable", not a pass', async () => {
    await expect(make(server.url, false).check('hello', signal())).rejects.toBeInstanceOf(ProviderUnavailable);
    expect(server.refused).toBe(1);
  });

  it('a provider that does not answer is stopped by the timeout as unavailable', async () => {
    await expect(provider.check('HANG here', AbortSignal.timeout(200))).rejects.toBeInstanceOf(ProviderUnavailable);
    await expect(make('http://127.0.0.1:1', true).check('hello', signal())).rejects.toBeInstanceOf(ProviderUnavailable);
  });
});
