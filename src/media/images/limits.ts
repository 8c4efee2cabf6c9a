import type { WireType } from '../../providers/wire/types.ts';

/**
 * What a provider refuses, so no request carries an image it would answer with a 400 (a refused
 * image would stay in the history and fail every later turn too).
 *
 * Per image, every protocol gets the strictest documented rule, Anthropic's Messages API: at most
 * 5 MB (5,242,880 bytes, counted on the base64 text) and 8000 px a side, 2000 px a side once a
 * request holds more than 20 images, and 100 images a request. A `chat_compat` gateway may route
 * to any vendor, so nothing looser is assumed there.
 *
 * Per request, the images together stay under the protocol's body limit with room for the text:
 * Anthropic 32 MB a request, the Gemini API 20 MB of inline data, OpenAI 50 MB; an unknown
 * chat-completions gateway is given the Gemini figure.
 */
export interface ImageLimits {
  /** Longest side of any one image. */
  maxEdgePx: number;
  /** Longest side once a request holds more than `manyImages` images. */
  manyImagesEdgePx: number;
  manyImages: number;
  /** Base64 characters of one image. */
  maxBase64Bytes: number;
  /** Images in one request; older ones become notes past it. */
  maxImages: number;
  /** Base64 characters of all images of one request; older ones become notes past it. */
  requestBase64Bytes: number;
}

const MB = 1024 * 1024;

const PER_IMAGE = { maxEdgePx: 8000, manyImagesEdgePx: 2000, manyImages: 20, maxBase64Bytes: 5 * MB, maxImages: 100 };

const REQUEST_BYTES: Record<WireType, number> = {
  messages_api: 24 * MB,
  chat_compat_responses: 40 * MB,
  genai: 15 * MB,
  cloud_ai: 15 * MB,
  chat_compat: 15 * MB,
  svc: 15 * MB,
};

/** The limits of a protocol (the strictest set when it is not known). */
export function imageLimits(wire: WireType | undefined): ImageLimits {
  return { ...PER_IMAGE, requestBase64Bytes: wire ? REQUEST_BYTES[wire] : Math.min(...Object.values(REQUEST_BYTES)) };
}

/** Raw bytes whose base64 is at most `base64Bytes` characters. */
export const rawBytesFor = (base64Bytes: number) => Math.floor(base64Bytes / 4) * 3;
