import { describe, expect, it } from 'vitest';
import {
  archiveKindOf,
  archiveSegmentName,
  innermostMemberStart,
  splitMemberPath,
} from '../../../src/scan/sources/formats.js';

describe('archive names and member paths', () => {
  it.each([
    ['takeout-001.zip', 'zip'],
    ['EXPORT.ZIP', 'zip'],
    ['a/b/photos.tar.gz', 'tgz'],
    ['photos.TGZ', 'tgz'],
    ['photos.tar', 'tar'],
    ['photos.gz', null],
    ['zip', null],
    ['IMG_1.jpg', null],
    ['', null],
  ])('archiveKindOf(%j) is %j', (name, kind) => {
    expect(archiveKindOf(name)).toBe(kind);
  });

  it.each([
    ['/x/part.zip!/Takeout/IMG_1.jpg', '/x/part.zip!'.length],
    // A zip inside a zip: the innermost member's folder, where parts of one export meet.
    ['/x/Part 1.zip!/iCloud Shared Albums.zip!/Trip/IMG_1.jpg', '/x/Part 1.zip!/iCloud Shared Albums.zip!'.length],
    ['/x/EXPORT.TAR.GZ!/a/b.jpg', '/x/EXPORT.TAR.GZ!'.length],
    // Folders whose names end in `!` separate nothing, inside an archive or not.
    ['/x/Wow!/IMG_1.jpg', 0],
    ['/x/part.zip!/Wow!/IMG_1.jpg', '/x/part.zip!'.length],
    ['/x/notes.txt!/IMG_1.jpg', 0],
    ['IMG_1.jpg', 0],
  ])('innermostMemberStart(%j) is %i', (path, start) => {
    expect(innermostMemberStart(path)).toBe(start);
    // The outermost split (display paths) finds a member exactly where this does.
    expect(splitMemberPath(path) === null).toBe(start === 0);
  });

  it.each([
    ['part.zip!', 'part.zip'],
    ['Part 2 of 2.TGZ!', 'Part 2 of 2.TGZ'],
    ['Screenshots!', 'Screenshots!'],
    ['Screenshots', 'Screenshots'],
    ['!', '!'],
  ])('archiveSegmentName(%j) is %j', (segment, name) => {
    expect(archiveSegmentName(segment)).toBe(name);
  });
});
