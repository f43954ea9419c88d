import { describe, expect, it } from 'vitest';
import {
  classifyOrigin,
  DEFAULT_INCLUDED,
  ORIGIN_CLASSES,
  ORIGIN_RULES,
  parseInclude,
  type OriginInput,
} from '../../../src/scan/evidence/origin.js';

const file = (path: string, extra: Partial<OriginInput> = {}): OriginInput => ({
  path,
  signals: undefined,
  hasCamera: false,
  ...extra,
});

describe('classifyOrigin', () => {
  const cases: [string, OriginInput, string, string, string][] = [
    // [what, input, origin, rule, signal]
    [
      'Takeout trash wins over everything',
      file('Takeout/Google Photos/Trash/IMG_1.jpg', {
        signals: { takeout_trashed: true, takeout_origin: 'mobileUpload' },
        hasCamera: true,
      }),
      'trashed',
      'takeout_trashed',
      'Takeout',
    ],
    [
      'a partner-shared photo with the partner camera',
      file('Photos from 2024/PXL_1.jpg', { signals: { takeout_origin: 'fromPartnerSharing' }, hasCamera: true }),
      'partner_shared',
      'takeout_partner_sharing',
      'Takeout',
    ],
    [
      'a shared album photo',
      file('Photos from 2024/IMG_2.jpg', { signals: { takeout_origin: 'fromSharedAlbum' } }),
      'shared_album',
      'takeout_shared_album',
      'Takeout',
    ],
    [
      'an iCloud shared albums zip',
      file('iCloud Shared Albums Part 1 of 2.zip!/Concert/IMG_3.jpeg', {
        archive: '/x/iCloud Shared Albums Part 1 of 2.zip',
        hasCamera: true,
      }),
      'shared_album',
      'icloud_shared_albums',
      'iCloud Shared Albums',
    ],
    [
      'an iCloud shared albums zip inside a part',
      file('iCloud Photos Part 2 of 2.zip!/iCloud Shared Albums.zip!/Shared/Trip/IMG_0201.JPG', {
        archive: '/x/iCloud Photos Part 2 of 2.zip',
      }),
      'shared_album',
      'icloud_shared_albums',
      'iCloud Shared Albums',
    ],
    [
      'a Takeout WhatsApp Images upload',
      file('Photos from 2023/IMG-20230101-WA0001.jpg', {
        signals: { takeout_origin: 'mobileUpload', takeout_folder: 'WhatsApp Images' },
      }),
      'received',
      'takeout_device_folder',
      'WhatsApp Images',
    ],
    [
      'a Takeout Telegram Images upload with a camera name',
      file('Photos from 2023/photo_1.jpg', {
        signals: { takeout_origin: 'mobileUpload', takeout_folder: 'Telegram Images' },
        hasCamera: true,
      }),
      'received',
      'takeout_device_folder',
      'Telegram Images',
    ],
    [
      'a Takeout Screenshots upload',
      file('Photos from 2023/a.png', { signals: { takeout_origin: 'mobileUpload', takeout_folder: 'Screenshots' } }),
      'screenshot',
      'takeout_device_folder',
      'Screenshots',
    ],
    [
      'a Takeout app source',
      file('Photos from 2023/a.jpg', { signals: { takeout_app: 'org.telegram.messenger' } }),
      'received',
      'takeout_app_source',
      'Telegram',
    ],
    [
      'an iOS screenshot marker',
      file('DCIM/IMG_0005.PNG', { signals: { screenshot_comment: true } }),
      'screenshot',
      'exif_screenshot_comment',
      'UserComment Screenshot',
    ],
    ['a WhatsApp name', file('misc/IMG-20230101-WA0001.jpg'), 'received', 'whatsapp_file_name', 'WhatsApp file name'],
    ['a WhatsApp video name', file('VID-20230101-WA0012.mp4'), 'received', 'whatsapp_file_name', 'WhatsApp file name'],
    [
      'an Android screenshot name',
      file('Pictures/Screenshot_20230101-101010_Maps.png'),
      'screenshot',
      'screenshot_file_name',
      'file name',
    ],
    [
      'an old macOS screenshot name',
      file('Desktop/Screen Shot 2020-01-01 at 10.10.10.png'),
      'screenshot',
      'screenshot_file_name',
      'file name',
    ],
    [
      'an iOS or macOS screenshot name',
      file('Screenshot 2023-05-01 at 09.00.00.png'),
      'screenshot',
      'screenshot_file_name',
      'file name',
    ],
    [
      'a phone copy: WhatsApp/Media/WhatsApp Images',
      file('phone/WhatsApp/Media/WhatsApp Images/a.jpg'),
      'received',
      'messenger_folder',
      'WhatsApp folder',
    ],
    [
      'a Telegram folder',
      file('phone/Telegram/Telegram Images/x.jpg'),
      'received',
      'messenger_folder',
      'Telegram folder',
    ],
    [
      'a Messenger folder',
      file('Pictures/Messenger/x.jpg', { hasCamera: true }),
      'received',
      'messenger_folder',
      'Messenger folder',
    ],
    [
      'a Screenshots folder',
      file('Pictures/Screenshots/x.png'),
      'screenshot',
      'screenshot_folder',
      'Screenshots folder',
    ],
    [
      'a Takeout camera upload',
      file('Photos from 2024/PXL_2.jpg', { signals: { takeout_origin: 'mobileUpload', takeout_folder: 'Camera' } }),
      'own',
      'takeout_camera_upload',
      'Takeout',
    ],
    [
      'a photo naming its camera',
      file('DCIM/100APPLE/IMG_1.HEIC', { hasCamera: true }),
      'own',
      'camera_metadata',
      'camera metadata',
    ],
    // Absence is never a signal.
    ['a plain PNG', file('misc/drawing.png'), 'unknown', 'no_signal', 'no signal'],
    ['a stripped JPEG', file('misc/no-metadata.jpg'), 'unknown', 'no_signal', 'no signal'],
    [
      'a Drive upload without a camera',
      file('Photos from 2019/a.jpg', { signals: { takeout_origin: 'driveSync' } }),
      'unknown',
      'no_signal',
      'no signal',
    ],
    [
      'a web upload with a camera',
      file('a.jpg', { signals: { takeout_origin: 'webUpload' }, hasCamera: true }),
      'own',
      'camera_metadata',
      'camera metadata',
    ],
    // Names that only look alike.
    ['a folder named for a trip', file('Signal Hill/IMG_1.jpg'), 'unknown', 'no_signal', 'no signal'],
    ['a photo named screenshot', file('screenshot-of-stage.jpg'), 'unknown', 'no_signal', 'no signal'],
    // A `!` ends an archive's name only: `Screenshots!` is a folder of its own name.
    ['a folder named Screenshots!', file('Pictures/Screenshots!/x.png'), 'unknown', 'no_signal', 'no signal'],
    [
      'an iCloud library zip',
      file('iCloud Photos Part 1 of 2.zip!/Photos/IMG_1.jpeg', { archive: '/x/iCloud Photos Part 1 of 2.zip' }),
      'unknown',
      'no_signal',
      'no signal',
    ],
    ['a WhatsApp-like name without the WA number', file('IMG-20230101-0001.jpg'), 'unknown', 'no_signal', 'no signal'],
  ];
  it.each(cases)('%s', (_, input, origin, rule, signal) => {
    expect(classifyOrigin(input)).toEqual({ origin, rule, signal });
  });

  it('names every rule once', () => {
    const names = ORIGIN_RULES.map((rule) => rule.name);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of ORIGIN_RULES) expect(cases.some(([, , , used]) => used === rule.name)).toBe(true);
  });
});

describe('parseInclude', () => {
  it('adds named classes to the defaults', () => {
    const parsed = parseInclude(['partner_shared,received', 'screenshot']);
    expect('included' in parsed && [...parsed.included].sort()).toEqual(
      ['own', 'partner_shared', 'received', 'screenshot', 'unknown'].sort(),
    );
  });
  it('takes all, and dashes for underscores', () => {
    const all = parseInclude(['all']);
    expect('included' in all && all.included.size).toBe(ORIGIN_CLASSES.length);
    const dashed = parseInclude(['live-photo-video']);
    expect('included' in dashed && dashed.included.has('live_photo_video')).toBe(true);
  });
  it('names an unknown class', () => {
    expect(parseInclude(['own,partners'])).toEqual({ unknown: 'partners' });
  });
  it('is the defaults with nothing named', () => {
    const parsed = parseInclude([]);
    expect('included' in parsed && [...parsed.included]).toEqual([...DEFAULT_INCLUDED]);
  });
});
