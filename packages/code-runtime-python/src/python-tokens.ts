import { randomFillSync } from 'node:crypto';

/**
 * The one-time tokens that name each child's connections: 16 bytes of the operating system's CSPRNG
 * each, drawn 32 tokens at a time (one `getrandom` per 32 forks rather than per fork), each byte used once.
 */
export class TokenSource {
  readonly #buffer = Buffer.alloc(16 * 32);
  #offset = this.#buffer.length;

  /** A fresh token: 32 lowercase hex digits. */
  next(): string {
    if (this.#offset === this.#buffer.length) {
      randomFillSync(this.#buffer);
      this.#offset = 0;
    }
    const token = this.#buffer.toString('hex', this.#offset, this.#offset + 16);
    this.#offset += 16;
    return token;
  }
}
