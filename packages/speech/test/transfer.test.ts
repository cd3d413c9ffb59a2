import { MessageChannel, markAsUntransferable } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { transferList } from '../src/audio/transfer.ts';

describe('transferList', () => {
  it(`moves what can move and copies a buffer marked untransferable, on this Node (${process.versions.node})`, async () => {
    const pooled = new ArrayBuffer(16);
    markAsUntransferable(pooled);
    const own = new Uint8Array([1, 2, 3]).buffer;
    const { port1, port2 } = new MessageChannel();
    try {
      const got = new Promise<{ a: Uint8Array; b: Uint8Array }>((resolve) => port2.once('message', resolve));
      // Node 21+ throws "Cannot transfer object of unsupported type" if the pooled buffer is in the list.
      port1.postMessage({ a: new Uint8Array(pooled), b: new Uint8Array(own) }, transferList([pooled, own, own]));
      const msg = await got;
      expect(pooled.byteLength).toBe(16);
      expect(own.byteLength).toBe(0);
      expect([...msg.b]).toEqual([1, 2, 3]);
      expect(msg.a.byteLength).toBe(16);
    } finally {
      port1.close();
      port2.close();
    }
  });

  it('keeps message ports and drops empty and shared buffers', () => {
    const { port1, port2 } = new MessageChannel();
    const shared = new SharedArrayBuffer(8);
    expect(transferList([port1, new ArrayBuffer(0), shared])).toEqual([port1]);
    port1.close();
    port2.close();
  });
});
