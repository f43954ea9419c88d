#!/usr/bin/env bash
# Regenerates fixtures/exports/: exports in the shapes users hand over, made with real tools
# (Info-ZIP zip and unzip, GNU tar) from files of fixtures/library and fixtures/archives:
#
# - takeout-gap/: a Takeout in numbered parts with part 002 missing (Google's names,
#   `takeout-20250101T000000Z-001.zip`); the parts given are whole zips.
# - icloud-folders/: the two iCloud parts of fixtures/archives unzipped into folders, as
#   Safari unzips a download (the shared albums' zip inside part 2 stays a zip).
# - xmp-late.tgz: one .tgz whose XMP sidecars come after their photos in the stream.
#
# Needs: zip, unzip, tar, gzip. CI does not: the generated files are committed.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LIB="$ROOT/fixtures/library"
ARCHIVES="$ROOT/fixtures/archives"
OUT="$ROOT/fixtures/exports"
rm -rf "$OUT"
mkdir -p "$OUT/takeout-gap" "$OUT/icloud-folders"
export TZ=UTC
STAMP=takeout-20250101T000000Z

# Part 001: the 2022 photos; part 003: their JSON sidecars and the 2024 album. Part 002 is
# the one never downloaded.
cd "$LIB"
P22="takeout/Takeout/Google Photos/Photos from 2022"
P24="takeout/Takeout/Google Photos/Photos from 2024"
zip -q -X -r -9 "$OUT/takeout-gap/$STAMP-001.zip" "$P22"/*.jpg
zip -q -X -r -0 "$OUT/takeout-gap/$STAMP-003.zip" "$P22"/*.json "$P24"

# The iCloud parts unzipped where they lie, each into a folder named after its zip.
for part in "iCloud Photos Part 1 of 2" "iCloud Photos Part 2 of 2"; do
  mkdir -p "$OUT/icloud-folders/$part"
  unzip -q -o "$ARCHIVES/$part.zip" -d "$OUT/icloud-folders/$part"
done

# Photos first, then their XMP sidecars (tar writes the names in the order given).
tar --mtime=2024-01-01 --owner=0 --group=0 -czf "$OUT/xmp-late.tgz" \
  events/london/DSC_3003.jpg events/sydney/DSC_2002.jpg \
  events/london/DSC_3003.jpg.xmp events/london/DSC_3003.xmp events/sydney/DSC_2002.xmp

find "$OUT" -type f -print0 | sort -z | xargs -0 ls -l
