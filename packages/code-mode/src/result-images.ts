import type { JsonValue } from '@sluice/code-runtime';
import { formatBytes } from './result-render.js';

/** An image as MCP tool content carries it: base64 `data` and an `image/*` MIME type. */
export interface ImageContent {
  readonly type: 'image';
  /** Base64. */
  readonly data: string;
  readonly mimeType: string;
}

/** The most images one result sends along. */
export const maxResultImages = 8;

/** The most base64 bytes of images one result sends along, in total: 8 MiB. */
export const maxResultImageBytes = 8 * 1024 * 1024;

/** How deep {@link takeImages} looks for images in a value; deeper ones stay as they are. */
const maxImageDepth = 64;

/** What {@link takeImages} returns. */
export interface TakenImages {
  /** The value with each image's `data` replaced by a short note; the same value when it holds no image. */
  readonly value: JsonValue | undefined;
  /** The images to send along with the result, in the order they appear in the value. */
  readonly images: readonly ImageContent[];
}

/**
 * Finds image content objects (`{ type: "image", data, mimeType: "image/…" }`) in a returned value,
 * so they reach the model as images rather than as base64 in the text. With `attach`, up to
 * {@link maxResultImages} images ({@link maxResultImageBytes} in all) are returned to send along,
 * and each one's `data` in the value becomes `(image 1: image/png, 1.2 KiB, sent with this result)`;
 * without it, or past the limits, the note says it is not shown. Iterative, to {@link maxImageDepth}.
 */
export function takeImages(value: JsonValue | undefined, attach: boolean): TakenImages {
  if (value === undefined || !mayHoldImage(value)) return { value, images: [] };
  const copy = JSON.parse(JSON.stringify(value)) as JsonValue;
  const images: ImageContent[] = [];
  let bytes = 0;
  const replace = (image: { data: string; mimeType: string }): string => {
    const padding = image.data.endsWith('==') ? 2 : image.data.endsWith('=') ? 1 : 0;
    const size = formatBytes(Math.floor((image.data.length * 3) / 4) - padding);
    if (attach && images.length < maxResultImages && bytes + image.data.length <= maxResultImageBytes) {
      images.push({ type: 'image', data: image.data, mimeType: image.mimeType });
      bytes += image.data.length;
      return `(image ${images.length}: ${image.mimeType}, ${size}, sent with this result)`;
    }
    const why = attach
      ? `over the limit of ${maxResultImages} images or ${formatBytes(maxResultImageBytes)} per result`
      : 'images are not sent here';
    return `(${image.mimeType} image, ${size}, not shown: ${why})`;
  };
  // Depth-first in reading order, so images are numbered as the value reads; each image is mutated in place.
  const stack: { node: JsonValue; depth: number }[] = [{ node: copy, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (isImage(node)) {
      (node as { data: string }).data = replace(node);
      continue;
    }
    if (depth >= maxImageDepth) continue;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (let index = children.length - 1; index >= 0; index -= 1) {
      stack.push({ node: children[index]!, depth: depth + 1 });
    }
  }
  return { value: copy, images };
}

// Whole quanta of four, padding only at the end: what MCP clients decode (the SDK checks each image with atob).
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function mayHoldImage(value: JsonValue): boolean {
  return typeof value === 'object' && value !== null && JSON.stringify(value).includes('"image"');
}

function isImage(value: JsonValue): value is JsonValue & { type: 'image'; data: string; mimeType: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { type, data, mimeType } = value as Record<string, JsonValue>;
  return (
    type === 'image' &&
    typeof data === 'string' &&
    typeof mimeType === 'string' &&
    mimeType.startsWith('image/') &&
    data !== '' &&
    base64.test(data)
  );
}
