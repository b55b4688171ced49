import { describe, expect, it } from 'vitest';
import { TokenSource } from './python-tokens.js';

describe('TokenSource', () => {
  it('gives tokens of 32 lowercase hex digits, the only form the zygote accepts', () => {
    const tokens = new TokenSource();
    for (let index = 0; index < 40; index += 1) expect(tokens.next()).toMatch(/^[0-9a-f]{32}$/);
  });

  it('never hands out the same token twice, across refills of its buffer', () => {
    const tokens = new TokenSource();
    const drawn = Array.from({ length: 32 * 5 + 7 }, () => tokens.next());
    expect(new Set(drawn).size).toBe(drawn.length);
  });

  it('draws each source from its own random bytes', () => {
    const first = new TokenSource();
    const second = new TokenSource();
    expect(first.next()).not.toBe(second.next());
  });
});
