#!/usr/bin/env bash
# Regenerates the extraction test files for the gaps found on real camera files (see
# README.md here): made with ImageMagick 6, heif-enc (libheif 1.15), exiftool 12.57, ffmpeg
# (libx265) and a few lines of Python byte surgery where no tool writes the damage.
# Usage: test/scan/extract/files/make-gap-files.sh   (writes into this folder)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
x() { exiftool -q -overwrite_original "$@"; }

# 1. A phone HEIC: Exif item at the start of mdat, before the coded image (as iPhones write it).
#    The test cuts it at 90 % and 50 % of its bytes.
convert -size 64x64 xc:gray +noise Random -seed 7 noise.png
heif-enc -q 90 -o phone.heic noise.png >/dev/null
x -DateTimeOriginal="2024:05:18 14:02:11" -OffsetTimeOriginal="+02:00" -GPSLatitude=48.8584 -GPSLatitudeRef=N \
  -GPSLongitude=2.2945 -GPSLongitudeRef=E -Make=Apple -Model="iPhone 12" phone.heic
cp phone.heic "$here/phone.heic"

# 2. The same image as a low-overhead HEIF (the `mini` box): ftyp mif3/heic, then one mini box
#    whose bit-packed header (ISO/IEC 23008-12 2nd edition) sizes the hvcC, the image and the
#    Exif and XMP chunks that follow it.
convert -size 16x16 xc:navy small.png
heif-enc -q 50 -o small.heic small.png >/dev/null
x -DateTimeOriginal="2025:01:04 09:30:00" -OffsetTimeOriginal="+01:00" -Make=Google -Model="Pixel 9" small.heic
cat > lens.xmp <<'EOF'
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description xmlns:exifEX="http://cipa.jp/exif/1.0/" exifEX:LensModel="Pixel 9 back camera"/>
</rdf:RDF></x:xmpmeta>
EOF
python3 - small.heic lens.xmp "$here/mini.heic" <<'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()
xmp = open(sys.argv[2], 'rb').read()

def boxes(start, end):
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack('>I4s', data[pos:pos + 8])
        yield kind.decode('latin1'), pos + 8, pos + size
        pos += size

top = {k: (s, e) for k, s, e in boxes(0, len(data))}
ms, me = top['meta']
meta = {k: (s, e) for k, s, e in boxes(ms + 4, me)}
ipco = {k: (s, e) for k, s, e in boxes(*{k: (s, e) for k, s, e in boxes(*meta['iprp'])}['ipco'])}
hvcc = data[slice(*ipco['hvcC'])]
s, e = meta['iloc']
iloc = data[s:e]
assert iloc[0] == 1 and iloc[4] == 0x44 and iloc[5] == 0x40, 'iloc layout as libheif 1.15 + exiftool 12.57 write it'
items, pos = {}, 8
for _ in range(struct.unpack('>H', iloc[6:8])[0]):
    item_id, method, _ref, base, extents = struct.unpack('>HHHIH', iloc[pos:pos + 12])
    off, length = struct.unpack('>II', iloc[pos + 12:pos + 20])
    assert extents == 1
    if method == 0:
        items[item_id] = data[base + off:base + off + length]
    pos += 20
# heif-enc writes the coded tile as item 1 (under a one-tile grid); exiftool adds the Exif item.
image = items[1]
exif = next(item for item in items.values() if item[4:10] == b'Exif\0\0')

bits = []
def put(value, n):
    bits.extend((value >> (n - 1 - i)) & 1 for i in range(n))
put(0, 2)                              # version
for flag in (0, 0, 1, 0, 0, 0):        # explicit codec types, float, full range, alpha, explicit cicp, hdr
    put(flag, 1)
put(0, 1); put(1, 1); put(1, 1)        # icc, exif, xmp
put(1, 2)                              # chroma subsampling 4:2:0
put(0, 3)                              # orientation 1
put(0, 1); put(15, 7); put(15, 7)      # small dimensions: 16 x 16
put(0, 1); put(0, 1)                   # chroma centring (horizontal, vertical)
put(0, 1)                              # 8-bit
put(1, 1)                              # large metadata sizes (20 bits)
put(1, 1)                              # large codec configuration sizes (12 bits)
put(1, 1)                              # large item data sizes (28 bits)
put(len(hvcc), 12)                     # main item codec configuration
put(len(image) - 1, 28)                # main item data
put(0, 1)                              # exif/xmp not compressed
put(len(exif) - 1, 20)
put(len(xmp) - 1, 20)
while len(bits) % 8:
    bits.append(0)
header = bytes(int(''.join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits), 8))
payload = header + hvcc + image + exif + xmp
ftyp = struct.pack('>I4s4s', 16, b'ftyp', b'mif3') + b'heic'
open(sys.argv[3], 'wb').write(ftyp + struct.pack('>I4s', 8 + len(payload), b'mini') + payload)
EOF

# 3. A HEIF image sequence: an HEVC track (ffmpeg, libx265) whose ftyp says msf1/hevc and
#    whose handler says `pict`, as HEIF sequences do; no meta box.
ffmpeg -loglevel error -f lavfi -i color=c=teal:s=16x16:r=5:d=1 -c:v libx265 -x265-params log-level=none -tag:v hvc1 \
  -map_metadata -1 -fflags +bitexact -metadata creation_time=2023-06-01T12:00:00Z -movflags +faststart -y seq.mp4
python3 - seq.mp4 "$here/sequence.heic" <<'EOF'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
size = struct.unpack('>I', data[0:4])[0]
assert data[4:8] == b'ftyp' and size == 28, 'ffmpeg ftyp: major, minor, three compatible brands'
data[8:28] = b'msf1' + b'\0\0\0\0' + b'msf1' + b'iso8' + b'hevc'
at = data.find(b'hdlr')
assert data[at + 12:at + 16] == b'vide'
data[at + 12:at + 16] = b'pict'
open(sys.argv[2], 'wb').write(bytes(data))
EOF

# 4. A CR3-like file (no CR3 could be made here): ftyp crx, moov holding Canon's uuid box with
#    CMT1 (a TIFF: exiftool's EXIF of a JPEG), then a preview uuid box the file is cut inside.
convert -size 8x8 xc:maroon cr3.jpg
x -DateTimeOriginal="2023:09:02 18:45:00" -OffsetTimeOriginal="-07:00" -GPSLatitude=36.1147 -GPSLatitudeRef=N \
  -GPSLongitude=115.1728 -GPSLongitudeRef=W -Make=Canon -Model="Canon EOS R6" cr3.jpg
python3 - cr3.jpg "$here/cut.cr3" <<'EOF'
import struct, sys
jpeg = open(sys.argv[1], 'rb').read()
at = jpeg.find(b'Exif\0\0')
length = struct.unpack('>H', jpeg[at - 2:at])[0]
tiff = jpeg[at + 6:at - 2 + length]
box = lambda kind, body: struct.pack('>I4s', 8 + len(body), kind) + body
canon = box(b'uuid', bytes.fromhex('85c0b687820f11e08111f4ce462b6a48') + box(b'CMT1', tiff))
ftyp = box(b'ftyp', b'crx \0\0\0\1' + b'crx isom')
preview = box(b'uuid', bytes.fromhex('eaf42b5e1c984b88b9fbb7dc406e4d16') + b'\0' * 8 + jpeg)
data = ftyp + box(b'moov', canon) + preview
open(sys.argv[2], 'wb').write(data[:len(data) - len(jpeg) // 2])   # cut inside the preview
EOF

# 5. GPS written as ASCII text (a wrong TIFF type, seen on real files): the rationals of
#    GPSLatitude and GPSLongitude rewritten in place as "DD MM SS.SS" strings.
convert -size 8x8 xc:olive gps.jpg
x -DateTimeOriginal="2022:06:21 07:15:00" -OffsetTimeOriginal="+01:00" -GPSLatitude=51.5072 -GPSLatitudeRef=N \
  -GPSLongitude=0.1276 -GPSLongitudeRef=W gps.jpg
cp gps.jpg datestamp.jpg
python3 - gps.jpg "$here/gps-ascii.jpg" <<'EOF'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
t = data.find(b'Exif\0\0') + 6
assert data[t:t + 2] == b'MM'
u16 = lambda p: struct.unpack('>H', data[p:p + 2])[0]
u32 = lambda p: struct.unpack('>I', data[p:p + 4])[0]
def entries(ifd):
    return [t + ifd + 2 + 12 * i for i in range(u16(t + ifd))]
gps = next(u32(e + 8) for e in entries(u32(t + 4)) if u16(e) == 0x8825)
text = {2: b'51 30 25.92', 4: b'0 7 39.36'}
for e in entries(gps):
    tag = u16(e)
    if tag in text:
        assert u16(e + 2) == 5 and u32(e + 4) == 3
        value = text[tag].ljust(24, b'\0')
        data[e + 2:e + 8] = struct.pack('>HI', 2, 24)
        at = t + u32(e + 8)
        data[at:at + 24] = value
open(sys.argv[2], 'wb').write(bytes(data))
EOF

# 6. A GPSDateStamp holding date and time in one value: exiftool refuses to write it, so the
#    date stamp entry is pointed at a GPSMapDatum string holding "2024:07:13 03:15:29".
x -DateTimeOriginal="2024:07:12 20:15:00" -OffsetTimeOriginal= -GPSDateStamp=2024:07:13 -GPSTimeStamp=03:15:29 \
  -GPSMapDatum="2024:07:13 03:15:29" -GPSLatitude=40.7505 -GPSLatitudeRef=N -GPSLongitude=73.9934 \
  -GPSLongitudeRef=W datestamp.jpg
python3 - datestamp.jpg "$here/gps-datestamp-time.jpg" <<'EOF'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
t = data.find(b'Exif\0\0') + 6
u16 = lambda p: struct.unpack('>H', data[p:p + 2])[0]
u32 = lambda p: struct.unpack('>I', data[p:p + 4])[0]
def entries(ifd):
    return [t + ifd + 2 + 12 * i for i in range(u16(t + ifd))]
gps = next(u32(e + 8) for e in entries(u32(t + 4)) if u16(e) == 0x8825)
datum = next(e for e in entries(gps) if u16(e) == 0x0012)
stamp = next(e for e in entries(gps) if u16(e) == 0x001d)
data[stamp + 4:stamp + 12] = data[datum + 4:datum + 12]
open(sys.argv[2], 'wb').write(bytes(data))
EOF

# 7. An XMP APP1 segment whose header is `XMP\0://ns.adobe.com/xap/1.0/\0` (same length as the
#    standard `http://...`), as some writers produce it.
convert -size 8x8 xc:purple xmphdr.jpg
x -XMP-exif:DateTimeOriginal="2021-11-05T19:20:00+09:00" -XMP-tiff:Make=FUJIFILM -XMP-tiff:Model=X-T4 xmphdr.jpg
python3 - xmphdr.jpg "$here/xmp-header.jpg" <<'EOF'
import sys
data = open(sys.argv[1], 'rb').read()
standard = b'http://ns.adobe.com/xap/1.0/\0'
assert data.count(standard) == 1
open(sys.argv[2], 'wb').write(data.replace(standard, b'XMP\0://ns.adobe.com/xap/1.0/\0'))
EOF

# 8. A DNG whose only metadata is XMP (tag 700), as raw converters write it.
convert -size 8x8 xc:silver -compress none xmp.tif
x -DNGVersion=1.4.0.0 -UniqueCameraModel="Leica Q2" -XMP-exif:DateTimeOriginal="2022-12-24T18:00:00+01:00" \
  -XMP-exif:GPSLatitude="47,39.6N" -XMP-exif:GPSLongitude="9,10.8E" -XMP-tiff:Make="Leica Camera AG" \
  -XMP-tiff:Model="LEICA Q2" xmp.tif
cp xmp.tif "$here/xmp-only.dng"

# 9. IPTC Extension locations: the place shown (a landmark photographed from afar) and the
#    place the photo was created, each with GPS inside its structure.
convert -size 8x8 xc:khaki shown.jpg
cp shown.jpg created.jpg
x -XMP-exif:DateTimeOriginal="2023-08-12T21:00:00+01:00" -XMP-iptcExt:LocationShownGPSLatitude="55.9486 N" \
  -XMP-iptcExt:LocationShownGPSLongitude="3.1999 W" -XMP-iptcExt:LocationShownCity=Edinburgh shown.jpg
cp shown.jpg "$here/location-shown.jpg"
x -XMP-iptcExt:LocationCreatedGPSLatitude="55.9521 N" -XMP-iptcExt:LocationCreatedGPSLongitude="3.1965 W" \
  -XMP-iptcExt:LocationShownGPSLatitude="55.9486 N" -XMP-iptcExt:LocationShownGPSLongitude="3.1999 W" created.jpg
cp created.jpg "$here/location-created.jpg"

# 10. Make and Model stored as numbers: the ASCII entries rewritten as SHORT and LONG.
convert -size 8x8 xc:coral num.jpg
x -Make=AB -Model=ABC -DateTimeOriginal="2020:02:02 10:00:00" -OffsetTimeOriginal=+00:00 num.jpg
python3 - num.jpg "$here/make-number.jpg" <<'EOF'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
t = data.find(b'Exif\0\0') + 6
u16 = lambda p: struct.unpack('>H', data[p:p + 2])[0]
u32 = lambda p: struct.unpack('>I', data[p:p + 4])[0]
for i in range(u16(t + u32(t + 4))):
    e = t + u32(t + 4) + 2 + 12 * i
    if u16(e) == 0x010f:
        data[e + 2:e + 12] = struct.pack('>HIHH', 3, 1, 1234, 0)       # Make: SHORT 1234
    elif u16(e) == 0x0110:
        data[e + 2:e + 12] = struct.pack('>HII', 4, 1, 50710)          # Model: LONG 50710
open(sys.argv[2], 'wb').write(bytes(data))
EOF

# 11. XMP dates in the three properties: a scan (xmp:CreateDate, a year later) of a photo
#     taken 2019-05-04 18:30 +02:00 (photoshop:DateCreated), no exif:DateTimeOriginal.
convert -size 8x8 xc:tan order.jpg
x -XMP-xmp:CreateDate="2020-05-20T10:00:00-04:00" -XMP-photoshop:DateCreated="2019-05-04T18:30:00+02:00" order.jpg
cp order.jpg "$here/xmp-date-order.jpg"
