import { endpoints } from '@svc/contracts';
import { releasedDefinition } from '../../services/frameworks/frameworks.js';
import { defineRoute, serviceContextOf } from '../route.js';

/** The bytes of a version never change (a release must have the engine's hash for it): caches keep them a day. */
const FRAMEWORK_CACHE_CONTROL = 'public, max-age=86400';

/**
 * A released framework's definition as its canonical bytes, untouched, so that their SHA-256 is the
 * `framework_sha256` packages name; the ETag is that hash (a matching If-None-Match gets 304: compression.ts).
 */
export default defineRoute(endpoints.getFramework, async (route) => {
  const { sha256, bytes } = await releasedDefinition(serviceContextOf(route), route.params);
  const etag = `"${sha256}"`;
  const headers = { ETag: etag, 'Cache-Control': FRAMEWORK_CACHE_CONTROL };
  return { body: bytes, contentType: 'application/json', headers };
});
