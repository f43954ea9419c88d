/**
 * Where a file came from, decided from positive signals only: a Takeout JSON member, a name
 * a phone or a messenger gives, a marker the phone writes into the file, a folder a phone or an
 * export makes. No signal at all (a plain PNG, a stripped JPEG) is `unknown`, never a guess.
 * Pure: the signals in, a class with the rule that gave it out (see docs/readme/origins.md).
 */

import { archiveSegmentName } from '../sources/formats.js';

/** Every class a file can have. Pairing (pairing.ts) gives the last two. */
export const ORIGIN_CLASSES = [
  'own',
  'partner_shared',
  'shared_album',
  'received',
  'screenshot',
  'trashed',
  'edited_copy',
  'live_photo_video',
  'unknown',
] as const;
export type OriginClass = (typeof ORIGIN_CLASSES)[number];

/** What a sync sends unless `--include` says otherwise; pairs are collapsed. */
export const DEFAULT_INCLUDED: ReadonlySet<OriginClass> = new Set(['own', 'unknown']);

/** How a Takeout JSON's `googlePhotosOrigin` says the item entered the library. */
export type TakeoutOriginKind = 'fromPartnerSharing' | 'fromSharedAlbum' | 'mobileUpload' | 'driveSync' | 'webUpload';

/**
 * What the extractor finds in a file and its sidecars that speaks of its origin (stored with
 * the scan cache's record, never sent, never printed as such).
 */
export interface OriginSignals {
  /** The one key of Takeout's `googlePhotosOrigin` that camroll knows. */
  takeout_origin?: TakeoutOriginKind;
  /** `googlePhotosOrigin.mobileUpload.deviceFolder.localFolderName`. */
  takeout_folder?: string;
  /** `appSource.androidPackageName`. */
  takeout_app?: string;
  /** Takeout's `"trashed": true`. */
  takeout_trashed?: true;
  /** EXIF UserComment "Screenshot" (iOS writes it into every screenshot). */
  screenshot_comment?: true;
  /** Apple's content identifier: a Live Photo's still (MakerNote 0x0011) and video (QuickTime meta) share it. */
  content_id?: string;
}

/** The file as the origin rules see it. */
export interface OriginInput {
  /** The path the user sees (an archive member: `part.zip!/Takeout/…`), POSIX separators. */
  path: string;
  /** For an archive member: the archive file on disk. */
  archive?: string | undefined;
  signals: OriginSignals | undefined;
  /** Whether the file names the camera that made it (EXIF, XMP or QuickTime make/model). */
  hasCamera: boolean;
}

export interface OriginDecision {
  origin: OriginClass;
  /** The rule that decided (a name of ORIGIN_RULES, or `no_signal`). */
  rule: string;
  /** The leading signal, as the summary prints it: "Takeout", "WhatsApp Images", "file name". */
  signal: string;
}

interface OriginRule {
  name: string;
  decide(input: OriginInput, parts: PathParts): Pick<OriginDecision, 'origin' | 'signal'> | null;
}

interface PathParts {
  /** Folder names from the outermost (archive members: the archive's name, then the member's folders). */
  folders: readonly string[];
  /** What the folders say (the same for every file of a folder: worked out once per folder). */
  folderSignals: FolderSignals;
  name: string;
}

/** Phone folders (a Takeout's `localFolderName`, or a copied phone's folder) of received media. */
const RECEIVED_FOLDERS: readonly [RegExp, string][] = [
  [/^whatsapp( business)?( images| video| animated gifs| documents| stickers)?$/i, 'WhatsApp'],
  [/^telegram( images| video| documents)?$/i, 'Telegram'],
  [/^messenger$/i, 'Messenger'],
  [/^viber( images| video)?$/i, 'Viber'],
];
/** Screenshot folders of Android (and a Takeout's `localFolderName`), in a few languages. */
const SCREENSHOT_FOLDER =
  /^(screenshots?|screen ?recordings?|bildschirmfotos|captures? d[’']écran|capturas de pantalla)$/i;

/** Android apps that save what others sent (`appSource.androidPackageName`). */
const RECEIVING_APPS: Readonly<Record<string, string>> = {
  'com.whatsapp': 'WhatsApp',
  'com.whatsapp.w4b': 'WhatsApp',
  'org.telegram.messenger': 'Telegram',
  'org.thunderdog.challegram': 'Telegram',
  'com.facebook.orca': 'Messenger',
  'org.thoughtcrime.securesms': 'Signal',
  'com.viber.voip': 'Viber',
};

/** WhatsApp's own names: IMG-20230101-WA0001.jpg, VID-20230101-WA0001.mp4 (optionally "(1)"). */
const WHATSAPP_NAME = /^(IMG|VID|AUD|PTT|STK)-\d{8}-WA\d{4,}(\s?\(\d+\))?\.[a-z0-9]+$/i;
/**
 * Screenshot names: Android `Screenshot_20230101-101010.png` (and `_app`), macOS `Screen Shot
 * 2020-01-01 at 10.10.10.png`, macOS and iOS exports `Screenshot 2023-01-01 at …`/`Screenshot
 * 2023-01-01 101010.png`, a German Mac's `Bildschirmfoto 2023-01-01 um …`. Each carries a date:
 * a photo merely named "screenshot" is no signal.
 */
const SCREENSHOT_NAMES: readonly RegExp[] = [
  /^Screenshot_\d{8}[-_]\d{6}/i,
  /^Screenshot_\d{4}-\d{2}-\d{2}[-_]/i,
  /^Screen Shot \d{4}-\d{2}-\d{2} at /i,
  /^Screenshot \d{4}-\d{2}-\d{2}[ _]/i,
  /^Bildschirmfoto \d{4}-\d{2}-\d{2} um /i,
];
/** Every screenshot name above starts so: the others are ruled out by one test. */
const SCREENSHOT_FIRST = /^(?:screen|bildschirmfoto)/i;
/** An iCloud export's shared albums come in their own zips: `iCloud Shared Albums.zip`, `… Part 1 of 2.zip`. */
const ICLOUD_SHARED_ALBUMS = /^iCloud Shared Albums.*\.zip$/i;

function receivedFolder(name: string): string | null {
  for (const [pattern, app] of RECEIVED_FOLDERS) if (pattern.test(name)) return app;
  return null;
}

/**
 * The rules, in the order they are tried: the first that speaks decides. Takeout's own word
 * about the item comes first, then marks in the file and its name, then folders, then the
 * camera; a file none speaks for is `unknown`.
 */
export const ORIGIN_RULES: readonly OriginRule[] = [
  {
    name: 'takeout_trashed',
    decide: ({ signals }) => (signals?.takeout_trashed ? { origin: 'trashed', signal: 'Takeout' } : null),
  },
  {
    name: 'takeout_partner_sharing',
    decide: ({ signals }) =>
      signals?.takeout_origin === 'fromPartnerSharing' ? { origin: 'partner_shared', signal: 'Takeout' } : null,
  },
  {
    name: 'takeout_shared_album',
    decide: ({ signals }) =>
      signals?.takeout_origin === 'fromSharedAlbum' ? { origin: 'shared_album', signal: 'Takeout' } : null,
  },
  {
    name: 'icloud_shared_albums',
    // The zip given, or one inside an export's part (`Part 2 of 2.zip!/iCloud Shared Albums.zip!/…`).
    decide: ({ archive }, { folderSignals }) =>
      (archive !== undefined && ICLOUD_SHARED_ALBUMS.test(baseName(archive))) || folderSignals.sharedAlbums
        ? { origin: 'shared_album', signal: 'iCloud Shared Albums' }
        : null,
  },
  {
    name: 'takeout_device_folder',
    decide: ({ signals }) => {
      const folder = signals?.takeout_folder;
      if (signals?.takeout_origin !== 'mobileUpload' || folder === undefined) return null;
      if (SCREENSHOT_FOLDER.test(folder)) return { origin: 'screenshot', signal: folder };
      return receivedFolder(folder) === null ? null : { origin: 'received', signal: folder };
    },
  },
  {
    name: 'takeout_app_source',
    decide: ({ signals }) => {
      const app = signals?.takeout_app === undefined ? undefined : RECEIVING_APPS[signals.takeout_app];
      return app === undefined ? null : { origin: 'received', signal: app };
    },
  },
  {
    name: 'exif_screenshot_comment',
    decide: ({ signals }) =>
      signals?.screenshot_comment ? { origin: 'screenshot', signal: 'UserComment Screenshot' } : null,
  },
  {
    name: 'whatsapp_file_name',
    decide: (_, { name }) =>
      name.includes('-') && WHATSAPP_NAME.test(name) ? { origin: 'received', signal: 'WhatsApp file name' } : null,
  },
  {
    name: 'screenshot_file_name',
    decide: (_, { name }) =>
      SCREENSHOT_FIRST.test(name) && SCREENSHOT_NAMES.some((pattern) => pattern.test(name))
        ? { origin: 'screenshot', signal: 'file name' }
        : null,
  },
  {
    name: 'messenger_folder',
    decide: (_, { folderSignals }) =>
      folderSignals.received === null ? null : { origin: 'received', signal: `${folderSignals.received} folder` },
  },
  {
    name: 'screenshot_folder',
    decide: (_, { folderSignals }) =>
      folderSignals.screenshots ? { origin: 'screenshot', signal: 'Screenshots folder' } : null,
  },
  {
    name: 'takeout_camera_upload',
    decide: ({ signals }) => (signals?.takeout_origin === 'mobileUpload' ? { origin: 'own', signal: 'Takeout' } : null),
  },
  {
    name: 'camera_metadata',
    decide: ({ hasCamera }) => (hasCamera ? { origin: 'own', signal: 'camera metadata' } : null),
  },
];

/** The origin of one file: the first rule that speaks, else `unknown` (rule `no_signal`). */
export function classifyOrigin(input: OriginInput): OriginDecision {
  const parts = pathParts(input.path);
  for (const rule of ORIGIN_RULES) {
    const decided = rule.decide(input, parts);
    if (decided) return { origin: decided.origin, rule: rule.name, signal: decided.signal };
  }
  return { origin: 'unknown', rule: 'no_signal', signal: 'no signal' };
}

function baseName(path: string): string {
  const cut = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return path.slice(cut + 1);
}

interface FolderSignals {
  /** The messaging app whose folder holds the file (the outermost), or null. */
  received: string | null;
  screenshots: boolean;
  sharedAlbums: boolean;
}

/** Folders seen lately and what they say: files come folder by folder, so a few suffice. */
const FOLDERS_KEPT = 64;
type KnownFolder = { folders: readonly string[]; signals: FolderSignals };
const folderCache = new Map<string, KnownFolder>();
let last: { dir: string; known: KnownFolder } | null = null;

function folderSignals(folders: readonly string[]): FolderSignals {
  let received: string | null = null;
  for (const folder of folders) {
    received = receivedFolder(folder);
    if (received !== null) break;
  }
  return {
    received,
    screenshots: folders.some((folder) => SCREENSHOT_FOLDER.test(folder)),
    sharedAlbums: folders.some((folder) => ICLOUD_SHARED_ALBUMS.test(folder)),
  };
}

/** Folder names and the file name of a shown path; an archive's `!/` separates like a folder. */
function pathParts(path: string): PathParts {
  const cut = path.lastIndexOf('/');
  const name = path.slice(cut + 1);
  // The folder of the file before, most often: known without cutting it out again.
  if (last !== null && Math.max(cut, 0) === last.dir.length && path.startsWith(last.dir))
    return { folders: last.known.folders, folderSignals: last.known.signals, name };
  const dir = cut < 0 ? '' : path.slice(0, cut);
  let known = folderCache.get(dir);
  if (known === undefined) {
    const folders = dir
      .split('/')
      .map((segment) => archiveSegmentName(segment).replace(/\u00a0/g, ' '))
      .filter((segment) => segment !== '');
    known = { folders, signals: folderSignals(folders) };
    if (folderCache.size >= FOLDERS_KEPT) folderCache.clear();
    folderCache.set(dir, known);
  }
  last = { dir, known };
  return { folders: known.folders, folderSignals: known.signals, name };
}

/**
 * Parses `--include`: class names separated by commas, `all` for every class. Returns the set
 * sent (the defaults plus the named classes), or the first unknown name.
 */
export function parseInclude(values: readonly string[]): { included: Set<OriginClass> } | { unknown: string } {
  const included = new Set<OriginClass>(DEFAULT_INCLUDED);
  for (const value of values)
    for (const raw of value.split(',')) {
      const name = raw.trim().toLowerCase().replace(/-/g, '_');
      if (name === '') continue;
      if (name === 'all') for (const origin of ORIGIN_CLASSES) included.add(origin);
      else if ((ORIGIN_CLASSES as readonly string[]).includes(name)) included.add(name as OriginClass);
      else return { unknown: raw.trim() };
    }
  return { included };
}
