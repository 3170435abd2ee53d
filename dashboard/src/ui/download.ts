// Downloads of files the API answers behind the signed-in user's token. A plain link cannot
// carry the token, so the file is fetched through the typed client (as a Blob) and handed to
// the browser as a download under the name the server gave it.
import { unwrap } from '../api/client';

/** The file name of a `Content-Disposition: attachment` answer (`filename*` first), or `fallback`. */
export function fileNameOf(response: Response, fallback: string): string {
  const header = response.headers.get('content-disposition') ?? '';
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[2].trim());
    } catch {
      // A malformed escape: fall through to the plain name.
    }
  }
  const plain = /filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i.exec(header);
  const name = plain?.[1] ?? plain?.[2]?.trim();
  return name || fallback;
}

/** Hands `blob` to the browser as a download called `fileName`. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  // The browser has taken the file by the next turn; a minute leaves slow machines room.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** "1.2 MB", "340 kB", "12 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(bytes < 10_000 ? 1 : 0)} kB`;
  if (bytes < 1_000_000_000) return `${(bytes / 1_000_000).toFixed(1)} MB`;
  return `${(bytes / 1_000_000_000).toFixed(2)} GB`;
}

type BlobResult = { data?: Blob; error?: unknown; response: Response };

/**
 * Fetches a file through the typed client (called with `parseAs: 'blob'`) and saves it.
 * Answers its name and the blob; an error answer throws the API's text, as `unwrap` does.
 */
export async function download(call: Promise<BlobResult>, fallbackName: string): Promise<{ fileName: string; blob: Blob }> {
  let response: Response | undefined;
  const blob = await unwrap(
    call.then((result) => {
      response = result.response;
      return result;
    }),
  );
  const fileName = response ? fileNameOf(response, fallbackName) : fallbackName;
  saveBlob(blob, fileName);
  return { fileName, blob };
}
