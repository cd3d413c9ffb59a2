import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import Dysmsapi, { SendSmsRequest } from '@alicloud/dysmsapi20170525';
import { $OpenApiUtil } from '@alicloud/openapi-core';
import { createSmsSender } from '../../src/platform/sms.js';
import { fakeAlibabaSms, fakeTencentSms, fakeTwilioSms, type FakeSms } from '../support/sms.js';

const message = { to: '+8613800138000', code: '123456', text: 'Your Polyvox code is 123456' };
const fakes: FakeSms[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

describe('SMS providers through their SDKs, against fakes that check the signature', () => {
  it('Alibaba Cloud SMS: ACS3-HMAC-SHA256, mainland numbers without +86', async () => {
    const fake = await fakeAlibabaSms('LTAIfake', 'alibaba-secret');
    fakes.push(fake);
    const url = `alibaba://LTAIfake:alibaba-secret@${fake.host}?sign=Polyvox&template=SMS_1&tls=off`;
    await createSmsSender(url).send(message);
    await createSmsSender(url).send({ ...message, to: '+14155550100', code: '654321' });
    expect(fake.refused).toEqual([]);
    expect(fake.sent).toEqual([
      { to: '13800138000', code: '123456' },
      { to: '0014155550100', code: '654321' },
    ]);
    await expect(
      createSmsSender(`alibaba://LTAIfake:wrong@${fake.host}?sign=Polyvox&template=SMS_1&tls=off`).send(message),
    ).rejects.toThrow();
    expect(fake.refused).toEqual(['signature differs']);
    expect(fake.sent).toHaveLength(2);
  });

  it('Alibaba Cloud SMS: the older RPC signature (the SDK with signatureAlgorithm v2) is checked too', async () => {
    const fake = await fakeAlibabaSms('LTAIfake', 'alibaba-secret');
    fakes.push(fake);
    const send = (secret: string, to: string) =>
      new Dysmsapi(
        new $OpenApiUtil.Config({
          accessKeyId: 'LTAIfake',
          accessKeySecret: secret,
          endpoint: fake.host,
          protocol: 'http',
          signatureAlgorithm: 'v2',
        }),
      ).sendSms(
        new SendSmsRequest({ phoneNumbers: to, signName: 'Polyvox', templateCode: 'SMS_1', templateParam: '{"code":"246810"}' }),
      );
    await send('alibaba-secret', '13800138000');
    expect(fake.refused).toEqual([]);
    await expect(send('wrong', '13900139000')).rejects.toThrow();
    expect(fake.refused).toEqual(['signature differs']);
    expect(fake.sent).toEqual([{ to: '13800138000', code: '246810' }]);
  });

  it('Tencent Cloud SMS: TC3-HMAC-SHA256', async () => {
    const fake = await fakeTencentSms('AKIDfake', 'tencent-secret');
    fakes.push(fake);
    const url = `tencent://AKIDfake:tencent-secret@${fake.host}?app=1400000000&sign=Polyvox&template=100&tls=off`;
    await createSmsSender(url).send(message);
    expect(fake.refused).toEqual([]);
    expect(fake.sent).toEqual([{ to: '+8613800138000', code: '123456' }]);
    await expect(
      createSmsSender(`tencent://AKIDfake:wrong@${fake.host}?app=1400000000&sign=Polyvox&template=100&tls=off`).send(message),
    ).rejects.toThrow();
    expect(fake.refused).toEqual(['signature differs']);
  });

  it('Twilio: basic auth and a form body with the text', async () => {
    const fake = await fakeTwilioSms('ACfake0000000000000000000000000000', 'twilio-token');
    fakes.push(fake);
    const url = `twilio://ACfake0000000000000000000000000000:twilio-token@${fake.host}?from=%2B15005550006&tls=off`;
    await createSmsSender(url).send(message);
    expect(fake.refused).toEqual([]);
    expect(fake.sent).toEqual([{ to: '+8613800138000', text: message.text }]);
    await expect(
      createSmsSender(`twilio://ACfake0000000000000000000000000000:wrong@${fake.host}?from=%2B15005550006&tls=off`).send(message),
    ).rejects.toThrow();
    expect(fake.refused).toEqual(['basic auth differs']);
  });

  it('file outbox: one file per message with the number and the text', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sms-'));
    await createSmsSender(pathToFileURL(dir).href).send(message);
    const files = await fs.readdir(dir);
    expect(files).toHaveLength(1);
    const text = await fs.readFile(path.join(dir, files[0]!), 'utf8');
    expect(text).toContain('+8613800138000');
    expect(text).toContain(message.text);
    await fs.rm(dir, { recursive: true });
  });
});
