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

ls -l "$OUT"
