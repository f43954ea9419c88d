/**
 * Between an archive's path and a member's name in the paths a scan shows (`--jsonl`,
 * reports): `takeout-001.zip!/Takeout/Google Photos/IMG_1.jpg`, as Java's `jar:` URLs
 * write it. The member's name follows as it is stored (never normalised: `..` stays a name).
 */
export const MEMBER_SEPARATOR = '!/';

/** `archive!/member`: the path of a member (the archive's path as given, the member's name as stored). */
export function memberPath(archive: string, member: string): string {
  return `${archive}${MEMBER_SEPARATOR}${member}`;
}
