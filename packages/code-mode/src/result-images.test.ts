import { describe, expect, it } from 'vitest';
import { takeImages } from './result-images.js';

const image = (data: string) => ({ type: 'image', data, mimeType: 'image/png' });

describe('takeImages', () => {
  it('takes image content whose data decodes as base64', () => {
    for (const data of ['aGk=', 'aGkh', 'aA==', 'iVBORw0KGgo=']) {
      expect(takeImages({ picture: image(data) }, true).images).toEqual([image(data)]);
    }
  });

  it('leaves as data what only looks like an image, so a client never receives base64 it cannot decode', () => {
    for (const data of ['', 'a', 'abcde', 'aGk', 'aG=k', 'a===', 'aGk=aGk=', 'aGk!']) {
      const taken = takeImages({ picture: image(data) }, true);
      expect(taken.images).toEqual([]);
      expect(taken.value).toEqual({ picture: image(data) });
    }
  });
});
