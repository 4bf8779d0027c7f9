import { describe, expect, it } from 'vitest';
import {
  boundedJson,
  boundedString,
  hashJson,
  hashString,
  utf8Prefix,
} from '../../../lambdas/core/bounded-text.js';

describe('utf8Prefix', () => {
  it('cuts by UTF-8 bytes, between characters, and keeps short text as it is', () => {
    expect(utf8Prefix('€€€', 7)).toBe('€€'); // 3 bytes each: a third would need 9
    expect(utf8Prefix('a€', 3)).toBe('a');
    expect(utf8Prefix('short', 100)).toBe('short');
    expect(Buffer.byteLength(utf8Prefix('😀'.repeat(1_000), 1_001))).toBeLessThanOrEqual(1_001);
  });

  it('repairs lone surrogates so the text is well-formed', () => {
    expect(utf8Prefix('a\ud800b', 100)).toBe('a\ufffdb');
    expect(boundedString('a\ud800b', 100).cut).toBe(true);
  });
});

describe('boundedJson', () => {
  it('writes any value as JSON within the budget and says when it cut', () => {
    expect(boundedJson({ a: [1, 'x', null, true] }, 100)).toEqual({
      text: '{"a":[1,"x",null,true]}',
      cut: false,
    });
    const long = boundedJson({ list: 'y'.repeat(1_000) }, 50);
    expect(long.cut).toBe(true);
    expect(Buffer.byteLength(long.text)).toBeLessThanOrEqual(50);
  });

  it('survives nesting a million deep, cycles and values JSON cannot express', () => {
    let deep: unknown = 'leaf';
    for (let level = 0; level < 1_000_000; level += 1) deep = [deep];
    expect(boundedJson(deep, 20)).toEqual({ text: '['.repeat(20), cut: true });
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    expect(boundedJson(cyclic, 100).text).toBe('{"name":"loop","self":"[cycle]"}');
    expect(boundedJson([undefined, Number.NaN, 10n, () => 1], 100).text).toBe('[null,null,"10",null]');
  });
});

describe('hashJson and hashString', () => {
  it('hash equal values equally and different ones, lone surrogates included, differently', () => {
    expect(hashJson({ a: [1, 2] })).toBe(hashJson({ a: [1, 2] }));
    expect(hashJson({ a: [1, 2] })).not.toBe(hashJson({ a: [2, 1] }));
    expect(hashString('evt-\ud800')).not.toBe(hashString('evt-\udc00'));
  });
});
