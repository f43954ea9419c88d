import { COLLAPSED, leadingSignal, type LeftOutCounts, type OriginClass, type RecordOrigin } from '../../scan/index.js';
import { plural } from './vocabulary.js';

/** How a class reads in a summary line, singular and plural. */
const CLASS_WORDS: Record<OriginClass, [string, string]> = {
  own: ['own', 'own'],
  partner_shared: ['partner-shared', 'partner-shared'],
  shared_album: ['shared-album', 'shared-album'],
  received: ['received', 'received'],
  screenshot: ['screenshot', 'screenshots'],
  trashed: ['trashed', 'trashed'],
  edited_copy: ['edited copy', 'edited copies'],
  live_photo_video: ['Live Photo video', 'Live Photo videos'],
  unknown: ['unknown', 'unknown'],
};

/** What each rule means, for `scan FILE`. */
const RULE_WORDS: Record<string, string> = {
  takeout_trashed: 'the Google Takeout sidecar says "trashed": true',
  takeout_partner_sharing: 'the Google Takeout sidecar says googlePhotosOrigin.fromPartnerSharing',
  takeout_shared_album: 'the Google Takeout sidecar says googlePhotosOrigin.fromSharedAlbum',
  icloud_shared_albums: "it comes from an iCloud export's Shared Albums zip",
  takeout_device_folder: 'the Google Takeout sidecar names the phone folder it was uploaded from',
  takeout_app_source: 'the Google Takeout sidecar names the app that saved it (appSource)',
  exif_screenshot_comment: 'its EXIF UserComment is "Screenshot" (iOS marks screenshots so)',
  whatsapp_file_name: "its name is WhatsApp's (IMG-YYYYMMDD-WA0000)",
  screenshot_file_name: "its name is a phone's or a computer's screenshot name",
  messenger_folder: "it lies in a messaging app's folder",
  screenshot_folder: 'it lies in a Screenshots folder',
  takeout_camera_upload: "the Google Takeout sidecar says it was uploaded from the phone's camera folder",
  camera_metadata: 'it names the camera that made it',
  no_signal: 'nothing in the file, its name, folder or sidecars says where it came from',
  content_identifier: "Apple's content identifier: the Live Photo's still and video share it",
  live_photo_stem: 'same name as a still, a video of at most 3.5 s, taken within 2 s of it',
  edited_copy_name: 'an edited copy beside its original',
};

/** `31 partner-shared (Takeout), 12 received (WhatsApp Images)`: one kind (left out or collapsed); '' when none. */
export function formatLeftOut(counts: LeftOutCounts, collapsed: boolean): string {
  return (Object.entries(counts) as [OriginClass, NonNullable<LeftOutCounts[OriginClass]>][])
    .filter(([origin]) => COLLAPSED.has(origin) === collapsed)
    .sort((a, b) => b[1].files - a[1].files || a[0].localeCompare(b[0]))
    .map(([origin, count]) => {
      const [one, many] = CLASS_WORDS[origin];
      return `${plural(count.files, one, many)} (${leadingSignal(count)})`;
    })
    .join(', ');
}

/** The summary lines of what was not sent (none when nothing was): `left out:` and `collapsed:`. */
export function leftOutLines(counts: LeftOutCounts, width: number): string[] {
  const lines: string[] = [];
  const left = formatLeftOut(counts, false);
  const collapsed = formatLeftOut(counts, true);
  if (left !== '') lines.push(`  ${'left out:'.padEnd(width)}${left}  (--include CLASS sends them)`);
  if (collapsed !== '') lines.push(`  ${'collapsed:'.padEnd(width)}${collapsed}  (one item per moment)`);
  return lines;
}

/** `scan FILE`'s origin rows: the class, the rule in words, and whether it is sent. */
export function explainOrigin(origin: RecordOrigin): [string, string][] {
  const rows: [string, string][] = [
    [`origin`, `${origin.origin}  (${origin.rule}: ${RULE_WORDS[origin.rule] ?? origin.rule})`],
  ];
  if (origin.pair !== null && origin.left_out === null)
    rows.push(['', `pairs with ${origin.pair.partner}; sent too (--include ${origin.pair.origin})`]);
  if (origin.left_out === null) rows.push(['sent', 'yes']);
  else if (COLLAPSED.has(origin.left_out))
    rows.push([
      'sent',
      `no: one moment with ${origin.pair?.partner ?? 'its partner'}, which is sent (--include ${origin.left_out} sends it too)`,
    ]);
  else rows.push(['sent', `no: ${origin.left_out} is left out (--include ${origin.left_out} sends it)`]);
  return rows;
}
