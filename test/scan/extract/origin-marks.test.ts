import { describe, expect, it } from 'vitest';
import { appleContentIdentifier, exifOriginMarks, userCommentText } from '../../../src/scan/extract/origin-marks.js';
import { parseTakeout } from '../../../src/scan/extract/takeout.js';

/** An Apple MakerNote as iPhones write it: header, version 1, "MM", a big-endian IFD; offsets from its start. */
function appleMakerNote(contentId: string): Uint8Array {
  const header = Buffer.concat([Buffer.from('Apple iOS\0', 'latin1'), Buffer.from([0, 1]), Buffer.from('MM')]);
  const entries = 2;
  const ifd = Buffer.alloc(2 + entries * 12 + 4);
  ifd.writeUInt16BE(entries, 0);
  const valueAt = header.length + ifd.length;
  // 0x0001 MakerNoteVersion (SLONG 1, inline), then 0x0011 the identifier (ASCII, at valueAt).
  ifd.writeUInt16BE(0x0001, 2);
  ifd.writeUInt16BE(9, 4);
  ifd.writeUInt32BE(1, 6);
  ifd.writeUInt32BE(14, 10);
  const text = Buffer.from(`${contentId}\0`, 'latin1');
  ifd.writeUInt16BE(0x0011, 14);
  ifd.writeUInt16BE(2, 16);
  ifd.writeUInt32BE(text.length, 18);
  ifd.writeUInt32BE(valueAt, 22);
  return new Uint8Array(Buffer.concat([header, ifd, text]));
}

const ID = '4C0A5B5E-7E7A-4A3B-9F53-0D8A7C9C1E11';

describe('Apple MakerNote content identifier', () => {
  it('reads tag 0x0011', () => {
    expect(appleContentIdentifier(appleMakerNote(ID))).toBe(ID);
    expect(appleContentIdentifier(appleMakerNote(ID.toLowerCase()))).toBe(ID);
  });
  it.each([
    ['another maker', new Uint8Array(Buffer.from('Nikon\0\x02\x10\0\0MM\0*\0\0\0\x08'))],
    ['a cut note', appleMakerNote(ID).subarray(0, 30)],
    ['a value past the end', appleMakerNote(ID).subarray(0, 50)],
    ['nothing', new Uint8Array(0)],
  ])('is null for %s', (_, bytes) => {
    expect(appleContentIdentifier(bytes)).toBeNull();
  });
});

describe('UserComment', () => {
  const comment = (code: string, text: string): Uint8Array =>
    new Uint8Array(Buffer.concat([Buffer.from(code.padEnd(8, '\0'), 'latin1'), Buffer.from(text, 'latin1')]));
  it.each([
    [comment('ASCII', 'Screenshot'), 'Screenshot'],
    [comment('', 'Screenshot\0\0'), 'Screenshot'],
    [comment('UNICODE', 'S\0c\0'), null],
    [comment('JIS', 'x'), null],
    ['Screenshot ', 'Screenshot'],
    [new Uint8Array(3), null],
  ])('%#', (value, text) => {
    expect(userCommentText(value)).toBe(text);
  });
  it('marks only the exact word', () => {
    expect(exifOriginMarks({ UserComment: comment('ASCII', 'Screenshot') })).toEqual({ screenshot_comment: true });
    expect(exifOriginMarks({ UserComment: comment('ASCII', 'Screenshot of the stage') })).toEqual({});
    expect(exifOriginMarks({ MakerNote: appleMakerNote(ID) })).toEqual({ content_id: ID });
    expect(exifOriginMarks({})).toEqual({});
  });
});

describe('parseTakeout origin members', () => {
  const origin = (json: object) => parseTakeout(JSON.stringify({ title: 'x', ...json }))?.origin;
  it.each([
    [{ googlePhotosOrigin: { fromPartnerSharing: {} } }, { takeout_origin: 'fromPartnerSharing' }],
    [{ googlePhotosOrigin: { fromSharedAlbum: {} } }, { takeout_origin: 'fromSharedAlbum' }],
    [
      {
        googlePhotosOrigin: {
          mobileUpload: { deviceFolder: { localFolderName: 'WhatsApp Images' }, deviceType: 'ANDROID_PHONE' },
        },
      },
      { takeout_origin: 'mobileUpload', takeout_folder: 'WhatsApp Images' },
    ],
    [
      { googlePhotosOrigin: { mobileUpload: { deviceFolder: { localFolderName: '' }, deviceType: 'IOS_PHONE' } } },
      { takeout_origin: 'mobileUpload' },
    ],
    [{ googlePhotosOrigin: { driveSync: {} } }, { takeout_origin: 'driveSync' }],
    [{ googlePhotosOrigin: { webUpload: { computerUpload: {} } } }, { takeout_origin: 'webUpload' }],
    [{ googlePhotosOrigin: { composition: { type: 'AUTO' } } }, {}],
    [{ appSource: { androidPackageName: 'com.whatsapp' } }, { takeout_app: 'com.whatsapp' }],
    [{ trashed: true }, { takeout_trashed: true }],
    [{ trashed: false }, {}],
    // A wrong shape is no signal, and costs the rest nothing.
    [{ googlePhotosOrigin: 'partner', appSource: 7, trashed: 'yes' }, {}],
    [
      { googlePhotosOrigin: { mobileUpload: { deviceFolder: { localFolderName: 'x'.repeat(300) } } } },
      { takeout_origin: 'mobileUpload' },
    ],
  ])('%j', (json, expected) => {
    expect(origin(json)).toEqual(expected);
  });
  it('keeps time and place beside a wrong origin member', () => {
    const parsed = parseTakeout(
      JSON.stringify({ photoTakenTime: { timestamp: '1720829730' }, googlePhotosOrigin: [1], trashed: 1 }),
    );
    expect(parsed?.takenMs).toBe(1720829730000);
  });
});
