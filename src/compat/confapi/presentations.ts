import xml2js from 'xml2js';
import { failure } from './errors.js';
import type { PresentationRef } from './model.js';

export const maxDocuments = 20;

type Node = { $?: Record<string, string>; _?: string; [child: string]: unknown };

function children(node: unknown, name: string): Node[] {
  if (typeof node !== 'object' || node === null) return [];
  const list = (node as Record<string, unknown>)[name];
  return Array.isArray(list) ? (list.filter((n) => typeof n === 'object' && n !== null) as Node[]) : [];
}

/**
 * The documents of a create body in the upstream pre-upload format:
 * `<modules><module name="presentation"><document url="…" filename="…"/>…</module></modules>`
 * (a document may instead carry its file inline, base64). Only references are kept: there is
 * no whiteboard module to import them into yet, and nothing is fetched. The body is not
 * covered by the checksum, so it is treated as untrusted text: parsed by xml2js (sax:
 * no DTD, no external entities), sizes capped.
 */
export async function parsePresentations(body: string): Promise<PresentationRef[]> {
  if (body.trim() === '') return [];
  let doc: unknown;
  try {
    doc = await xml2js.parseStringPromise(body, { explicitArray: true, explicitRoot: true, strict: true });
  } catch {
    throw failure('validationError', 'The XML body could not be parsed');
  }
  const root = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>).modules : undefined;
  if (root === '') return [];
  if (typeof root !== 'object' || root === null)
    throw failure('validationError', 'The XML body must be a <modules> element');
  const refs: PresentationRef[] = [];
  for (const module of children(root, 'module')) {
    if (module.$?.name !== 'presentation') continue;
    for (const document of children(module, 'document')) {
      if (refs.length >= maxDocuments)
        throw failure('validationError', `At most ${maxDocuments} documents may be pre-uploaded`);
      const url = document.$?.url ?? null;
      const inline = typeof document._ === 'string' && document._.trim() !== '';
      if (url !== null && !/^https?:\/\//i.test(url))
        throw failure('validationError', 'A document url must be an http or https URL');
      refs.push({
        url,
        filename: document.$?.filename ?? document.$?.name ?? null,
        inline,
        size: inline ? Buffer.byteLength(document._!.trim(), 'base64') : 0,
      });
    }
  }
  return refs;
}
