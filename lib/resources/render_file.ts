// A stored file from read_attachment's answer (url, sha256, size, type, uploaded, nip94, data,
// text for text types): a text file as text and any other file as a blob (the relay's own base64
// `data`), each with the file's own media type. Pure.

import { str } from "./fields.ts";

/** One item of a `resources/read` answer. */
export type ContentItem = { uri: string; mimeType: string; text: string } | {
  uri: string;
  mimeType: string;
  blob: string;
};

/** A media type as RFC 6838 spells one (parameters allowed); anything else is not trusted as a type. */
const MEDIA_TYPE =
  /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;\s*[a-z0-9!#$&^_.+-]+=("[^"\r\n]*"|[a-z0-9!#$&^_.+-]+))*$/i;

/** Types read as text although not text/*. */
const TEXT_TYPES =
  /^(application\/(json|xml|javascript|ecmascript|yaml|x-yaml|toml|x-sh|sql|graphql|ld\+json)|[a-z]+\/[a-z0-9.+-]+\+(json|xml))(\s*;.*)?$/i;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The file's media type when it is a well-formed one, lowercased; application/octet-stream otherwise. */
export function fileType(type: string | undefined): string {
  return type !== undefined && type.length <= 255 && MEDIA_TYPE.test(type)
    ? type.toLowerCase()
    : "application/octet-stream";
}

/** Whether a file of this type reads as text. */
export function isTextType(type: string): boolean {
  return type.startsWith("text/") || TEXT_TYPES.test(type);
}

/** The relay's base64 `data`, when it is base64. */
function base64Of(answer: unknown): string | undefined {
  const data = str(answer, "data");
  return data !== undefined && data.length % 4 === 0 && BASE64.test(data) ? data : undefined;
}

function decodedText(data: string): string | undefined {
  try {
    return STRICT_UTF8.decode(Uint8Array.from(atob(data), (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** read_attachment's answer as a content item; undefined when it carries no file. */
export function renderFile(answer: unknown, uri: string): ContentItem | undefined {
  const mimeType = fileType(str(answer, "type"));
  const data = base64Of(answer);
  if (isTextType(mimeType)) {
    const text = str(answer, "text") ?? (data === undefined ? undefined : decodedText(data));
    if (text !== undefined) return { uri, mimeType, text };
  }
  return data === undefined ? undefined : { uri, mimeType, blob: data };
}
