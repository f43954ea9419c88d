#!/usr/bin/env bash
# Regenerates fixtures/archives/: exports made with real tools (Info-ZIP zip, GNU tar,
# python3's zipfile) from files of fixtures/library, so a scan of the archives can be
# compared with the scan of the folders they were made from.
#
# Needs: zip, tar, gzip, python3. CI does not: the generated files are committed.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LIB="$ROOT/fixtures/library"
OUT="$ROOT/fixtures/archives"
rm -rf "$OUT"
mkdir -p "$OUT"
cd "$LIB"
export TZ=UTC

# A Takeout in two parts, as Google splits one: the 2022 photos in part 1 (deflated), their
# JSON sidecars in part 2 (stored) with the 2024 album, so every 2022 photo meets its
# sidecar across parts. New York (with NAS thumbnails and an AppleDouble file) and
# `Recently Deleted` ride in part 1 to show the junk rules.
P22="takeout/Takeout/Google Photos/Photos from 2022"
P24="takeout/Takeout/Google Photos/Photos from 2024"
part1=("$P22"/*.jpg events/new-york "Recently Deleted")
part2=("$P22"/*.json "$P24")
zip -q -X -r -9 "$OUT/takeout-001.zip" "${part1[@]}"
zip -q -X -r -0 "$OUT/takeout-002.zip" "${part2[@]}"

# The same two parts as gzipped tar streams (photos of part 1 come before any JSON).
tar --sort=name --mtime=2024-01-01 --owner=0 --group=0 -czf "$OUT/takeout-001.tgz" "${part1[@]}"
tar --sort=name --mtime=2024-01-01 --owner=0 --group=0 -czf "$OUT/takeout-002.tgz" "${part2[@]}"

# Zip64 records forced on a small archive (Info-ZIP's -fz).
zip -q -X -fz "$OUT/zip64.zip" travel/patagonia.jpg travel/india-thar.jpg

# A download cut short: part 1 without its central directory, stopped half-way through
# its fourth member (Info-ZIP writes sizes in each local header).
python3 - "$OUT/takeout-001.zip" "$OUT/cut.zip" <<'PY'
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as z:
    infos = z.infolist()
    fourth = infos[3]
    data = open(src, 'rb').read()
    cut = fourth.header_offset + 30 + len(fourth.filename.encode()) + fourth.compress_size // 2
open(dst, 'wb').write(data[:cut])
PY

# The same cut in a streamed zip (sizes only in data descriptors after each member), as
# python's zipfile writes to a pipe.
python3 - "$OUT/cut-streamed.zip" <<'PY'
import io, sys, zipfile
class Pipe(io.RawIOBase):
    def __init__(self): self.data = bytearray()
    def writable(self): return True
    def write(self, b): self.data += b; return len(b)
    def seekable(self): return False
pipe = Pipe()
names = ['travel/patagonia.jpg', 'travel/india-thar.jpg', 'travel/nz-lake-taupo.jpg']
with zipfile.ZipFile(pipe, 'w', compression=zipfile.ZIP_DEFLATED) as z:
    for name in names:
        z.write(name, name)
data = bytes(pipe.data)
offsets = [i for i in range(len(data)) if data.startswith(b'PK\x03\x04', i)]
open(sys.argv[1], 'wb').write(data[: offsets[2] + 200])
PY

# A .tgz download cut at 60%: what came before the cut is read.
head -c "$(( $(stat -c %s "$OUT/takeout-001.tgz") * 6 / 10 ))" "$OUT/takeout-001.tgz" >"$OUT/cut.tgz"

# A bomb: 20 MB of zeros under a photo's name deflate to about 20 KB (ratio ~1000).
python3 - "$OUT/bomb.zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    z.writestr('DCIM/IMG_0001.jpg', bytes(20 * 1024 * 1024))
    z.write('travel/patagonia.jpg', 'DCIM/patagonia.jpg')
PY

# An encrypted member beside a plain one (Info-ZIP's traditional encryption).
zip -q -X -P secret "$OUT/encrypted.zip" travel/india-thar.jpg
zip -q -X "$OUT/encrypted.zip" travel/nz-lake-taupo.jpg

# Names that would escape a folder if extracted: `..`, an absolute name, a NUL. They are only names.
python3 - "$OUT/names.zip" <<'PY'
import sys, zipfile
data = open('travel/patagonia.jpg', 'rb').read()
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr(zipfile.ZipInfo('../../escape/patagonia.jpg'), data)
    z.writestr(zipfile.ZipInfo('/etc/patagonia.jpg'), data)
    z.writestr(zipfile.ZipInfo('nul/patXgonia.jpg'), data)
raw = bytearray(open(sys.argv[1], 'rb').read())
# zipfile refuses NUL in names: the X becomes one in both headers (same length, same offsets).
raw = raw.replace(b'nul/patXgonia.jpg', b'nul/pat\x00gonia.jpg')
open(sys.argv[1], 'wb').write(bytes(raw))
PY

# Names in both encodings zip knows: UTF-8 (flagged, as python writes a non-ASCII name) and
# CP437 (unflagged, as old tools wrote them: 0x82 is é).
python3 - "$OUT/encodings.zip" <<'PY'
import sys, zipfile
data = open('travel/patagonia.jpg', 'rb').read()
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.writestr('Été/Ünïcode_写真.jpg', data)
    z.writestr('cp437/cafX.jpg', data)
raw = bytearray(open(sys.argv[1], 'rb').read())
raw = raw.replace(b'cp437/cafX.jpg', b'cp437/caf\x82.jpg')
open(sys.argv[1], 'wb').write(bytes(raw))
PY

# An iCloud Photos export (privacy.apple.com) in two parts: Photo Details CSVs in both
# (a row of part 2's CSV describes a photo of part 1), a row marked deleted, Recently
# Deleted, and a deflated `iCloud Shared Albums.zip` inside part 2 with a CSV of its own.
# Photos 0101, 0104 and 0202 have no instant of their own; 0102 and 0201 do.
ICLOUD="$(mktemp -d)"
trap 'rm -rf "$ICLOUD"' EXIT
mkdir -p "$ICLOUD/p1/iCloud Photos/Photos" "$ICLOUD/p1/iCloud Photos/Recently Deleted" "$ICLOUD/p2/iCloud Photos/Photos" "$ICLOUD/shared/Shared/Trip"
cp misc/local-time-no-gps.jpg "$ICLOUD/p1/iCloud Photos/Photos/IMG_0101.JPG"
cp travel/patagonia.jpg "$ICLOUD/p1/iCloud Photos/Photos/IMG_0102.JPG"
cp misc/no-metadata.jpg "$ICLOUD/p1/iCloud Photos/Photos/IMG_0103.JPG"
cp travel/nz-lake-taupo.jpg "$ICLOUD/p1/iCloud Photos/Recently Deleted/IMG_0199.JPG"
cp misc/blank-date.jpg "$ICLOUD/p2/iCloud Photos/Photos/IMG_0104.JPG"
cp travel/india-thar.jpg "$ICLOUD/shared/Shared/Trip/IMG_0201.JPG"
cp misc/placeholder-date.jpg "$ICLOUD/shared/Shared/Trip/IMG_0202.JPG"
HEAD='imgName,fileChecksum,favorite,hidden,deleted,originalCreationDate,viewCount,importDate'
printf '%s\n%s\n%s\n%s\n' "$HEAD" \
  'IMG_0102.JPG,AaBb01,no,no,no,"Tuesday February 14,2023 3:00 PM GMT",2,"Tuesday February 14,2023 3:05 PM GMT"' \
  'IMG_0103.JPG,AaBb02,no,no,yes,"Monday January 2,2023 9:30 AM GMT",0,"Monday January 2,2023 9:31 AM GMT"' \
  'IMG_0104.JPG,AaBb03,yes,yes,no,"Sunday December 31,2023 11:59 PM GMT",7,"Monday January 1,2024 12:10 AM GMT"' \
  >"$ICLOUD/p1/iCloud Photos/Photo Details.csv"
printf '%s\n%s\n' "$HEAD" 'IMG_0101.JPG,AaBb04,no,no,no,"Saturday June 4,2022 12:11 PM GMT",3,"Saturday June 4,2022 12:15 PM GMT"' \
  >"$ICLOUD/p2/iCloud Photos/Photo Details-1.csv"
printf '%s\n%s\n' "$HEAD" 'IMG_0202.JPG,AaBb05,no,no,no,"Friday March 1,2024 8:00 AM GMT",1,"Friday March 1,2024 8:02 AM GMT"' \
  >"$ICLOUD/shared/Shared/Photo Details.csv"
(cd "$ICLOUD/shared" && zip -q -X -r "$ICLOUD/p2/iCloud Shared Albums.zip" Shared)
(cd "$ICLOUD/p1" && zip -q -X -r "$OUT/iCloud Photos Part 1 of 2.zip" "iCloud Photos")
(cd "$ICLOUD/p2" && zip -q -X -r "$OUT/iCloud Photos Part 2 of 2.zip" "iCloud Photos" "iCloud Shared Albums.zip")

ls -l "$OUT"
