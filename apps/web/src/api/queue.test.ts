import { describe, expect, it } from 'vitest';
import { RequestQueue } from './queue';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('RequestQueue', () => {
  it('holds tasks until opened, then runs them in arrival order', async () => {
    const q = new RequestQueue();
    const order: number[] = [];
    const a = q.enqueue(async () => (order.push(1), 'a'));
    const b = q.enqueue(async () => (order.push(2), 'b'));
    await tick();
    expect(order).toEqual([]);
    expect(q.size).toBe(2);
    q.open();
    await expect(Promise.all([a, b])).resolves.toEqual(['a', 'b']);
    expect(order).toEqual([1, 2]);
    expect(q.size).toBe(0);
  });

  it('runs tasks at once while ready', async () => {
    const q = new RequestQueue();
    q.open();
    let ran = false;
    await q.enqueue(async () => {
      ran = true;
    });
    expect(ran).toBe(true);
  });

  it('waits again after close, e.g. while a new anonymous account is created', async () => {
    const q = new RequestQueue();
    q.open();
    q.close();
    let ran = false;
    const p = q.enqueue(async () => {
      ran = true;
    });
    await tick();
    expect(ran).toBe(false);
    q.open();
    await p;
    expect(ran).toBe(true);
  });

  it('rejects waiting and later tasks when set-up fails, until closed again', async () => {
    const q = new RequestQueue();
    const waiting = q.enqueue(async () => 1);
    const boom = new Error('offline');
    q.fail(boom);
    await expect(waiting).rejects.toBe(boom);
    await expect(q.enqueue(async () => 2)).rejects.toBe(boom);
    q.close();
    const retried = q.enqueue(async () => 3);
    q.open();
    await expect(retried).resolves.toBe(3);
  });

  it('turns a task that throws synchronously into a rejection', async () => {
    const q = new RequestQueue();
    const p = q.enqueue((): Promise<number> => {
      throw new Error('sync');
    });
    q.open();
    await expect(p).rejects.toThrow('sync');
  });
});
