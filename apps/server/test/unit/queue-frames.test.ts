import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors.js';
import { decodeFrame, frame, Msg, QueueFrameError, readFrame } from '../../src/synthesis/queue/frames.js';

const body = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
const timings = {
  words: [{ word: 'Hi', start: 0, end: 0.3, charStart: 0, charEnd: 2 }],
  alignment: { characters: ['H', 'i'], character_start_times_seconds: [0, 0.15], character_end_times_seconds: [0.15, 0.3] },
  normalizedAlignment: {
    characters: ['H', 'i'],
    character_start_times_seconds: [0, 0.15],
    character_end_times_seconds: [0.15, 0.3],
  },
  durationSec: 0.3,
};

describe("a worker's frames", () => {
  it('carry their type in the first byte and the body after it', () => {
    const message = frame(Msg.Chunk, Buffer.from([9, 8, 7]));
    expect(readFrame(message)).toEqual({ type: Msg.Chunk, body: Buffer.from([9, 8, 7]) });
    expect(readFrame(frame(Msg.Started, 'worker-1')).body.toString()).toBe('worker-1');
  });

  it('read back the JSON bodies a worker of this release writes', () => {
    expect(decodeFrame.progress(body({ done: 1, total: 3 }))).toEqual({ done: 1, total: 3 });
    expect(decodeFrame.done(body({ durationSec: 1.5, cached: false, mark: null, timings }))).toEqual({
      durationSec: 1.5,
      cached: false,
      mark: null,
      timings,
    });
    expect(decodeFrame.done(body({ durationSec: 0, cached: false }))).toEqual({ durationSec: 0, cached: false });
    expect(decodeFrame.timings(body({ ...timings, known: { characters: 2, normalized: 2 } }))).toEqual({
      ...timings,
      known: { characters: 2, normalized: 2 },
    });
    const error = decodeFrame.failed(body({ code: 'RATE_LIMITED', params: { seconds: 3 } }));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', params: { seconds: 3 } });
  });

  it('refuse a body that is not JSON or not what its type says, naming the frame and the problem', () => {
    const cases: Array<[() => unknown, string, RegExp]> = [
      [() => decodeFrame.done(body('{"durationSec": 1,')), 'done', /not JSON/],
      [() => decodeFrame.done(body({ durationSec: '1', cached: false })), 'done', /durationSec/],
      [() => decodeFrame.progress(body([1, 2])), 'progress', /\(body\)/],
      [() => decodeFrame.timings(body({ ...timings, words: [{ word: 'Hi' }] })), 'timings', /words\.0\.start/],
      [() => decodeFrame.failed(body({ code: 'NO_SUCH_CODE', params: {} })), 'failed', /code/],
      [() => decodeFrame.failed(body({ code: 'INTERNAL', params: { nested: {} } })), 'failed', /params\.nested/],
    ];
    for (const [read, name, problem] of cases) {
      let thrown: unknown;
      try {
        read();
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(QueueFrameError);
      expect((thrown as QueueFrameError).frame).toBe(name);
      expect((thrown as QueueFrameError).problem).toMatch(problem);
      expect((thrown as Error).message).toMatch(new RegExp(`^worker's ${name} message is invalid: `));
    }
  });
});
