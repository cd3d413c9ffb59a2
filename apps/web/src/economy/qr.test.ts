import { describe, expect, it } from 'vitest';
import { codewords, encodeQr, penalty, rsRemainder, versionFor } from './qr';

// Made by python-qrcode 7.4.2 (level M, byte mode, mask 2) and read back by zbarimg.
const WECHAT = 'weixin://wxpay/bizpayurl?pr=Ab3dEf9';
const WECHAT_MASK_2 = [
  '#######...#....##..##.#######',
  '#.....#...##.....##.#.#.....#',
  '#.###.#.##..#.#.#.#.#.#.###.#',
  '#.###.#.#.#.#....#..#.#.###.#',
  '#.###.#.###.####.####.#.###.#',
  '#.....#.####.####...#.#.....#',
  '#######.#.#.#.#.#.#.#.#######',
  '........######.#..#..........',
  '#.#####..#.##.#.#####.#####..',
  '...#.#.##.#......#.######.#.#',
  '.#.#.##.#####..#.#..##..#....',
  '....#....#....#.#.......##...',
  '##.##.#.#.#.#..#.#.....#..###',
  '..##.#.#####.##.#..##.###.###',
  '###.#.##.#...####.#..##.##...',
  '###..#.#..#..#.##.#......#...',
  '..###.#######.##.#..##.#..#..',
  '#.#.##...#..#..##..##########',
  '#.....#...##...#.##...##..#..',
  '#..#....#...#.###.##..###...#',
  '#.#######.###..#.##########..',
  '........#.#..##.##.##...#.#.#',
  '#######...##.####..##.#.#.#..',
  '#.....#.###.##.....##...#...#',
  '#.###.#.#.....###...#####.##.',
  '#.###.#.#..#......##...#.####',
  '#.###.#.##..##.#..#.########.',
  '#.....#...###.......##.#...#.',
  '#######.#..#.###.#.#.###..#..',
];

const rows = (m: boolean[][]) => m.map((r) => r.map((d) => (d ? '#' : '.')).join(''));

describe('rsRemainder', () => {
  it('gives the error correction of the standard worked example (HELLO WORLD, 1-M)', () => {
    const data = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17];
    // The generator of degree 10 comes from codewords(): check it through a version 1 encode.
    const divisor10 = [216, 194, 159, 111, 199, 94, 95, 113, 157, 193];
    expect(rsRemainder(data, divisor10)).toEqual([196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
  });
});

describe('encodeQr', () => {
  it('matches a reference encoder module for module', () => {
    const m = encodeQr(WECHAT, 2);
    expect(m.length).toBe(29);
    expect(rows(m)).toEqual(WECHAT_MASK_2);
  });

  it('picks the mask with the lowest penalty', () => {
    const chosen = encodeQr(WECHAT);
    const scores = [0, 1, 2, 3, 4, 5, 6, 7].map((mask) => penalty(encodeQr(WECHAT, mask)));
    expect(penalty(chosen)).toBe(Math.min(...scores));
  });

  it('grows the version with the text, draws the finders, and refuses what no version holds', () => {
    expect(versionFor(14)).toBe(1);
    expect(versionFor(15)).toBe(2);
    expect(encodeQr('x'.repeat(300)).length).toBe(4 * versionFor(300) + 17);
    const m = encodeQr('hello');
    for (const [x, y] of [
      [0, 0],
      [m.length - 7, 0],
      [0, m.length - 7],
    ] as const) {
      expect(m[y]!.slice(x, x + 7).every(Boolean), 'finder top edge').toBe(true);
      expect(m[y + 1]!.slice(x + 1, x + 6).some(Boolean), 'finder ring is light').toBe(false);
    }
    expect(() => encodeQr('x'.repeat(3000))).toThrow(RangeError);
  });

  it('encodes text as UTF-8 bytes', () => {
    const bytes = new TextEncoder().encode('你好');
    const cw = codewords(bytes, 1);
    // Mode 0100, count 6, then the first byte 0xE4.
    expect(cw[0]).toBe(0x40);
    expect(cw[1]).toBe(0x6e);
    expect(cw[2]! >> 4).toBe(0x4);
  });
});
