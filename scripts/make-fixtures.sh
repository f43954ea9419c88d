#!/usr/bin/env bash
# Regenerates fixtures/library/ and its answer key fixtures/expected/.
#
# Needs: exiftool, ImageMagick 6 (convert), ffmpeg (libx264), heif-enc (libheif), python3,
# jq, sha256sum. CI does not have these tools: the generated files are committed.
#
# Every file is made next to the line stating what a correct scan must report for it
# (`expect ...`). Those expectations are written by hand from the values written into the
# file, never by running camroll; only the ids (sha256 of the bytes) are computed here.
# Times in the expectations are derived in the comments beside them.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LIB="$ROOT/fixtures/library"
KEY="$ROOT/fixtures/expected"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

rm -rf "$LIB" "$KEY"
mkdir -p "$LIB" "$KEY"
cd "$LIB"

EXPECT_RAW="$WORK/expect.tsv"
: >"$EXPECT_RAW"

# --- helpers ---------------------------------------------------------------------------

N=0
COLOUR=
# next_colour sets COLOUR: every generated image gets its own, so no two files share bytes
# by accident. (Not called in $(...): the counter must survive in this shell.)
next_colour() {
  N=$((N + 1))
  COLOUR="$(printf '#%02x%02x%02x' $(((N * 37 + 11) % 256)) $(((N * 91 + 7) % 256)) $(((N * 53 + 3) % 256)))"
}

# img OUT [SIZE]: a tiny image in the format of OUT's extension, with no metadata at all.
img() {
  local out="$1" size="${2:-24x24}" colour ext
  next_colour
  colour="$COLOUR"
  mkdir -p "$(dirname "$out")"
  ext="${out##*.}"
  ext="${ext,,}"
  case "$ext" in
    heic)
      convert -size "$size" "xc:$colour" -strip "$WORK/heic-src.png"
      heif-enc -q 50 -o "$WORK/out.heic" "$WORK/heic-src.png" >/dev/null
      mv "$WORK/out.heic" "$out"
      ;;
    png) convert -size "$size" "xc:$colour" -strip -define png:exclude-chunks=date,time "$out" ;;
    tif | tiff | dng) convert -size "$size" "xc:$colour" -strip -compress none "TIFF:$out" ;;
    webp) convert -size "$size" "xc:$colour" -strip "WEBP:$out" ;;
    *) convert -size "$size" "xc:$colour" -strip -quality 80 "JPEG:$out" ;;
  esac
}

# et ARGS...: exiftool, editing in place, quietly.
et() { exiftool -q -q -overwrite_original "$@"; }

# vid OUT [ffmpeg metadata args...]: a 1 s, 16x16, 10 fps H.264 clip. ffmpeg writes moov
# after mdat (no faststart) unless -movflags +faststart is given.
vid() {
  local out="$1"
  shift
  mkdir -p "$(dirname "$out")"
  next_colour
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "color=c=$COLOUR:s=16x16:r=10:d=1" \
    -c:v libx264 -pix_fmt yuv420p -preset ultrafast -map_metadata -1 \
    -fflags +bitexact -flags:v +bitexact "$@" "$out"
}

# move_moov_to_end FILE: exiftool rewrites QuickTime files with moov first; cameras and
# phones often write it last. Move it after mdat and shift the chunk offsets (stco/co64).
move_moov_to_end() {
  python3 - "$1" <<'PY'
import struct, sys
path = sys.argv[1]
data = open(path, 'rb').read()
boxes, i = [], 0
while i < len(data):
    size, kind = struct.unpack('>I4s', data[i:i + 8])
    boxes.append((kind, i, size)); i += size
moov = next(b for b in boxes if b[0] == b'moov')
mdat = next(b for b in boxes if b[0] == b'mdat')
if moov[1] > mdat[1]:
    sys.exit(0)
rest = b''.join(data[s:s + n] for k, s, n in boxes if k != b'moov')
delta = -moov[2]  # mdat moves up by the size of moov
body = bytearray(data[moov[1]:moov[1] + moov[2]])
def walk(start, end):
    j = start
    while j < end:
        size, kind = struct.unpack('>I4s', body[j:j + 8])
        if kind in (b'trak', b'mdia', b'minf', b'stbl'):
            walk(j + 8, j + size)
        elif kind in (b'stco', b'co64'):
            count = struct.unpack('>I', body[j + 12:j + 16])[0]
            fmt, width = ('>I', 4) if kind == b'stco' else ('>Q', 8)
            for e in range(count):
                p = j + 16 + e * width
                body[p:p + width] = struct.pack(fmt, struct.unpack(fmt, body[p:p + width])[0] + delta)
        j += size
walk(8, len(body))
open(path, 'wb').write(rest + bytes(body))
PY
}

# negate_gps_longitude FILE: store EXIF GPSLongitude as SRATIONAL with every part negative,
# as some phone apps do: the value is already negative and a W ref must not flip it again.
negate_gps_longitude() {
  python3 - "$1" <<'PY'
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
app1 = data.index(b'Exif\x00\x00') + 6
bo = '<' if data[app1:app1 + 2] == b'II' else '>'
def u16(p): return struct.unpack(bo + 'H', data[p:p + 2])[0]
def u32(p): return struct.unpack(bo + 'I', data[p:p + 4])[0]
def entries(ifd):
    for k in range(u16(app1 + ifd)):
        yield app1 + ifd + 2 + 12 * k
gps = next(u32(e + 8) for e in entries(u32(app1 + 4)) if u16(e) == 0x8825)
entry = next(e for e in entries(gps) if u16(e) == 0x0004)
assert u16(entry + 2) == 5 and u32(entry + 4) == 3
data[entry + 2:entry + 4] = struct.pack(bo + 'H', 10)
values = app1 + u32(entry + 8)
for k in range(3):
    p = values + 8 * k
    num, den = struct.unpack(bo + 'II', data[p:p + 8])
    data[p:p + 8] = struct.pack(bo + 'iI', -num, den)
open(path, 'wb').write(bytes(data))
PY
}

# takeout FILE TAKEN_UTC(or 0) EXIF_LAT EXIF_LON GEO_LAT GEO_LON TITLE: a Google Takeout
# sidecar as Takeout writes it (epoch seconds as strings; 0,0 means "no location").
takeout() {
  local file="$1" when="$2" ts formatted
  if [ "$when" = 0 ]; then ts=0; formatted="1 Jan 1970, 00:00:00 UTC"; else
    ts="$(date -u -d "$when" +%s)"; formatted="$(date -u -d "$when" '+%-d %b %Y, %H:%M:%S UTC')"
  fi
  mkdir -p "$(dirname "$file")"
  jq -n --arg ts "$ts" --arg f "$formatted" --arg title "$7" \
    --argjson elat "$3" --argjson elon "$4" --argjson glat "$5" --argjson glon "$6" '{
      title: $title, description: "", imageViews: "3",
      creationTime: {timestamp: "1700000000", formatted: "14 Nov 2023, 22:13:20 UTC"},
      photoTakenTime: {timestamp: $ts, formatted: $f},
      geoData: {latitude: $glat, longitude: $glon, altitude: 0.0, latitudeSpan: 0.0, longitudeSpan: 0.0},
      geoDataExif: {latitude: $elat, longitude: $elon, altitude: 0.0, latitudeSpan: 0.0, longitudeSpan: 0.0},
      url: "https://photos.google.com/photo/AF1QipExample",
      googlePhotosOrigin: {mobileUpload: {deviceType: "ANDROID_PHONE"}}
    }' >"$file"
  skip "$file" sidecar
}

# xmp_sidecar FILE DATE [LAT LON]: an XMP sidecar with the capture date (with offset) in
# both exif:DateTimeOriginal and photoshop:DateCreated, and optionally GPS.
xmp_sidecar() {
  local file="$1" when="$2"
  shift 2
  local gps=()
  if [ $# -ge 2 ]; then gps=(-XMP-exif:GPSLatitude="$1" -XMP-exif:GPSLongitude="$2"); fi
  mkdir -p "$(dirname "$file")"
  rm -f "$file"
  exiftool -q -q -o "$file" -XMP-exif:DateTimeOriginal="$when" -XMP-photoshop:DateCreated="$when" \
    "${gps[@]}" -XMP-xmp:CreatorTool="darktable 4.6.1" "$WORK/empty.xmp"
  skip "$file" sidecar
}

# expect path=P [taken=ISO|null] [lat=N lon=N] [st=SOURCE] [sc=SOURCE] [dur=S] [make=..]
#        [model=..] [lens=..] [event=ID] [error=CLASS] [alt_error=CODE_PATTERN] note=TEXT
expect() {
  local IFS=$'\t'
  printf '%s\n' "$*" >>"$EXPECT_RAW"
}

# skip PATH REASON: a file or folder that gets no line, and the reason it is counted under.
# Reason names are the stable ones of src/scan/junk.ts (SKIP_REASONS). Each skipped folder
# holds exactly one media file, so counting per folder or per file gives the same number.
skip() { expect "path=$1" "skip=$2"; }

# An empty XMP packet: the start of every XMP sidecar (exiftool -o copies tags from its source).
printf '<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>\n<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"></rdf:RDF></x:xmpmeta>\n<?xpacket end="w"?>\n' >"$WORK/empty.xmp"

# gps LAT LATREF LON LONREF: exiftool arguments for EXIF GPS (decimal degrees, written as DMS).
gps() { echo -GPSLatitude="$1" -GPSLatitudeRef="$2" -GPSLongitude="$3" -GPSLongitudeRef="$4"; }

IPHONE=(-Make=Apple -Model="iPhone 13 Pro" -LensModel="iPhone 13 Pro back triple camera 5.7mm f/1.5")

# === Event 1: Madison Square Garden (venue 1), starts 2024-07-12T20:00 EDT = 2024-07-13T00:00Z
#     window [2024-07-12T22:00Z, 2024-07-13T04:00Z]

# Rule a: DateTimeOriginal + OffsetTimeOriginal + SubSecTimeOriginal.
# 20:15:00.123 at -04:00 -> 2024-07-13T00:15:00.123Z. Upper-case extension.
f=events/new-york/IMG_0001.JPG
img "$f"
et "${IPHONE[@]}" -DateTimeOriginal="2024:07:12 20:15:00" -OffsetTimeOriginal="-04:00" \
  -SubSecTimeOriginal=123 -ModifyDate="2024:07:12 20:15:00" -OffsetTime="-04:00" \
  $(gps 40.7505 N 73.9934 W) "$f"
expect "path=$f" taken=2024-07-13T00:15:00.123Z lat=40.7505 lon=-73.9934 st=exif_offset sc=exif_gps \
  make=Apple "model=iPhone 13 Pro" "lens=iPhone 13 Pro back triple camera 5.7mm f/1.5" event=1 \
  "note=offset + sub-seconds, S/W refs, upper-case .JPG"

# Near miss: local 17:45 with no offset and no GPS time -> zone at the coordinates,
# America/New_York (EDT, -04:00) -> 21:45Z, 15 min before the window opens: score
# exp(-15/30) = 0.61 >= 0.5, so it still matches event 1.
f=events/new-york/IMG_0002_near-miss.jpg
img "$f"
et -Make=Apple -Model="iPhone 13 Pro" -DateTimeOriginal="2024:07:12 17:45:00" $(gps 40.7506 N 73.9935 W) "$f"
expect "path=$f" taken=2024-07-12T21:45:00Z lat=40.7506 lon=-73.9935 st=timezone_lookup sc=exif_gps \
  make=Apple "model=iPhone 13 Pro" event=1 "note=near miss, matched by score (EDT from zone lookup)"

# Far miss: 17:00 at -04:00 -> 21:00Z, 60 min before the window: score 0.14, no match.
# Longitude stored already negative (SRATIONAL -73 -59 -36.24) with ref W: stays -73.9934.
f=events/new-york/IMG_0003_far-miss.jpg
img "$f"
et -Make=Apple -Model="iPhone 13 Pro" -DateTimeOriginal="2024:07:12 17:00:00" -OffsetTimeOriginal="-04:00" \
  $(gps 40.7504 N 73.9934 W) "$f"
negate_gps_longitude "$f"
expect "path=$f" taken=2024-07-12T21:00:00Z lat=40.7504 lon=-73.9934 st=exif_offset sc=exif_gps \
  make=Apple "model=iPhone 13 Pro" "note=far miss (no match); GPSLongitude already negative with ref W"

# OffsetTime (+09:00, belongs to ModifyDate) but no OffsetTimeOriginal: OffsetTime must not be
# used. No GPS time either -> zone lookup: 21:00 EDT -> 2024-07-13T01:00:00Z (event 1).
# Using OffsetTime would give 12:00Z and miss the event.
f=events/new-york/DSC_0004_offsettime-only.jpg
img "$f"
et -Make=SONY -Model=ILCE-7M3 -LensModel="FE 24-70mm F2.8 GM" -DateTimeOriginal="2024:07:12 21:00:00" \
  -ModifyDate="2024:07:13 10:00:00" -OffsetTime="+09:00" $(gps 40.7507 N 73.9932 W) "$f"
expect "path=$f" taken=2024-07-13T01:00:00Z lat=40.7507 lon=-73.9932 st=timezone_lookup sc=exif_gps \
  make=SONY model=ILCE-7M3 "lens=FE 24-70mm F2.8 GM" event=1 \
  "note=OffsetTime present without OffsetTimeOriginal: must be ignored"

# Junk beside them: AppleDouble and a Synology thumbnail folder.
printf '\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ' >"events/new-york/._IMG_0001.JPG"
skip "events/new-york/._IMG_0001.JPG" appledouble
img "events/new-york/@eaDir/IMG_0001.JPG/SYNOFILE_THUMB_XL.jpg"
skip "events/new-york/@eaDir/" nas_thumbnail

# === Event 2: Sydney Opera House (venue 2), 2023-12-09T19:30 AEDT = 08:30Z
#     window [06:30Z, 12:30Z]

# Rule b: local 20:10:00, GPS 09:10:07 on the same date -> 10:59:53 -> rounded to 15 min:
# +11:00 -> 20:10:00 - 11:00 = 09:10:00Z. HEIC made with heif-enc, EXIF added by exiftool.
f=events/sydney/IMG_2001.HEIC
img "$f"
et -Make=Apple -Model="iPhone 15" -DateTimeOriginal="2023:12:09 20:10:00" \
  -GPSDateStamp="2023:12:09" -GPSTimeStamp="09:10:07" $(gps 33.8568 S 151.2153 E) "$f"
expect "path=$f" taken=2023-12-09T09:10:00Z lat=-33.8568 lon=151.2153 st=gps_time sc=exif_gps \
  make=Apple "model=iPhone 15" event=2 "note=HEIC; offset inferred from GPS time (+11:00)"

# XMP sidecar in the NAME.xmp form only: 2023-12-09T21:45:00+11:00 -> 10:45Z. The file's own
# EXIF date (no offset) loses to the sidecar; coordinates from the file's EXIF GPS.
f=events/sydney/DSC_2002.jpg
img "$f"
et -Make=FUJIFILM -Model=X-T4 -DateTimeOriginal="2023:12:09 12:00:00" $(gps 33.8569 S 151.2152 E) "$f"
xmp_sidecar events/sydney/DSC_2002.xmp "2023:12:09 21:45:00+11:00"
expect "path=$f" taken=2023-12-09T10:45:00Z lat=-33.8569 lon=151.2152 st=xmp sc=exif_gps \
  make=FUJIFILM model=X-T4 event=2 "note=XMP sidecar NAME.xmp wins over the file's date"

# === Event 3: Wembley Stadium (venue 3), 2024-03-30T20:00 GMT = 20:00Z
#     window [18:00Z, 2024-03-31T00:00Z]; BST starts 2024-03-31 01:00Z

# PNG with embedded XMP: date with offset and XMP GPS. 20:45+00:00 -> 20:45Z.
f=events/london/wembley-2024-03-30.png
img "$f"
et -XMP-exif:DateTimeOriginal="2024:03:30 20:45:00+00:00" -XMP-photoshop:DateCreated="2024:03:30 20:45:00+00:00" \
  -XMP-exif:GPSLatitude="51.5561 N" -XMP-exif:GPSLongitude="0.2796 W" "$f"
expect "path=$f" taken=2024-03-30T20:45:00Z lat=51.5561 lon=-0.2796 st=xmp sc=xmp event=3 \
  "note=PNG with embedded XMP (date with offset, GPS)"

# TIFF, local 22:30 and coordinates -> Europe/London, still GMT that evening -> 22:30Z.
f=events/london/DSC_3002.tif
img "$f"
et -Make="NIKON CORPORATION" -Model="NIKON Z 6" -DateTimeOriginal="2024:03:30 22:30:00" \
  $(gps 51.5559 N 0.2794 W) "$f"
expect "path=$f" taken=2024-03-30T22:30:00Z lat=51.5559 lon=-0.2794 st=timezone_lookup sc=exif_gps \
  "make=NIKON CORPORATION" "model=NIKON Z 6" event=3 "note=TIFF; zone lookup on the eve of BST"

# Both XMP sidecar names exist: NAME.ext.xmp wins over NAME.xmp, and over the file's own EXIF.
# NAME.ext.xmp: 19:10+00:00 at Wembley. NAME.xmp: 06:00Z at sea (must not be used).
# The file's EXIF: 2019 with an offset (must not be used), no GPS.
f=events/london/DSC_3003.jpg
img "$f"
et -Make="NIKON CORPORATION" -Model="NIKON Z 6" -DateTimeOriginal="2019:01:01 10:00:00" -OffsetTimeOriginal="+00:00" "$f"
xmp_sidecar events/london/DSC_3003.jpg.xmp "2024:03:30 19:10:00+00:00" "51.5560 N" "0.2795 W"
xmp_sidecar events/london/DSC_3003.xmp "2024:03:30 06:00:00+00:00" "45.0 N" "30.0 W"
expect "path=$f" taken=2024-03-30T19:10:00Z lat=51.556 lon=-0.2795 st=xmp sc=xmp \
  "make=NIKON CORPORATION" "model=NIKON Z 6" event=3 "note=NAME.ext.xmp wins over NAME.xmp and EXIF"

# === Event 4: Tokyo Dome (venue 4), 2022-08-20T18:00 JST = 09:00Z; window [07:00Z, 13:00Z]

# MP4 with only mvhd creation time (rule d) and udta/©xyz location (written by exiftool).
f=events/tokyo/MAH00010.MP4
vid "$WORK/tokyo.mp4" -metadata creation_time="2022-08-20T10:00:00Z"
mkdir -p "$(dirname "$f")" && mv "$WORK/tokyo.mp4" "$f"
et -UserData:GPSCoordinates="35.7056, 139.7519" "$f"
expect "path=$f" taken=2022-08-20T10:00:00Z lat=35.7056 lon=139.7519 st=video_mvhd sc=video_iso6709 \
  dur=1 event=4 "note=MP4, mvhd creation time only, udta ©xyz"

# === Event 5: Allianz Parque (venue 5), 2024-11-16T21:00 BRT (-03) = 2024-11-17T00:00Z
#     window [2024-11-16T22:00Z, 2024-11-17T04:00Z]

# MOV with Apple keys (creationdate with offset, ISO 6709), moov before mdat (exiftool layout).
# creationdate 21:30-03:00 -> 00:30Z; mvhd deliberately 00:31:07Z (rule a wins over rule d).
f=events/sao-paulo/IMG_5001.MOV
vid "$WORK/sp1.mov" -metadata creation_time="2024-11-17T00:31:07Z"
mkdir -p "$(dirname "$f")" && mv "$WORK/sp1.mov" "$f"
et -Keys:CreationDate="2024:11:16 21:30:00-03:00" -Keys:GPSCoordinates="-23.5275, -46.6783, 760" \
  -Keys:Make=Apple -Keys:Model="iPhone 13" "$f"
expect "path=$f" taken=2024-11-17T00:30:00Z lat=-23.5275 lon=-46.6783 st=video_creationdate sc=video_iso6709 \
  dur=1 make=Apple "model=iPhone 13" event=5 "note=MOV faststart (moov first), Apple keys"

# Same keys, moov after mdat (as phones write it). 22:10-03:00 -> 01:10Z.
f=events/sao-paulo/IMG_5002.MOV
vid "$WORK/sp2.mov" -metadata creation_time="2024-11-17T01:10:00Z"
mv "$WORK/sp2.mov" "$f"
et -Keys:CreationDate="2024:11:16 22:10:00-03:00" -Keys:GPSCoordinates="-23.5277, -46.6785, 760" \
  -Keys:Make=Apple -Keys:Model="iPhone 13" "$f"
move_moov_to_end "$f"
expect "path=$f" taken=2024-11-17T01:10:00Z lat=-23.5277 lon=-46.6785 st=video_creationdate sc=video_iso6709 \
  dur=1 make=Apple "model=iPhone 13" event=5 "note=MOV with moov after mdat, Apple keys"

# Local 23:00 + coordinates -> America/Sao_Paulo (-03, no DST since 2019) -> 02:00Z.
f=events/sao-paulo/IMG_5003.jpg
img "$f"
et -Make=samsung -Model=SM-S911B -DateTimeOriginal="2024:11:16 23:00:00" $(gps 23.5274 S 46.6782 W) "$f"
expect "path=$f" taken=2024-11-17T02:00:00Z lat=-23.5274 lon=-46.6782 st=timezone_lookup sc=exif_gps \
  make=samsung model=SM-S911B event=5 "note=zone lookup, southern hemisphere"
img "events/sao-paulo/@__thumb/IMG_5003.jpg"
skip "events/sao-paulo/@__thumb/" nas_thumbnail

# === Event 6: Red Rocks (venue 6), 2023-08-05T19:00 MDT = 2023-08-06T01:00Z, NOT licensed:
#     comes back unmatched with venue_id 6. 20:30-06:00 -> 02:30Z. Lower-case refs n/w.
f=events/red-rocks/IMG_6001.jpg
img "$f"
et -Make=Google -Model="Pixel 7" -DateTimeOriginal="2023:08:05 20:30:00" -OffsetTimeOriginal="-06:00" \
  -GPSLatitude=39.6654 -GPSLatitudeRef#=n -GPSLongitude=105.2057 -GPSLongitudeRef#=w "$f"
expect "path=$f" taken=2023-08-06T02:30:00Z lat=39.6654 lon=-105.2057 st=exif_offset sc=exif_gps \
  make=Google "model=Pixel 7" event=6 "note=lower-case GPS refs; unlicensed event (venue_id 6)"

# === Event 7: Cape Town Stadium (venue 7), hidden: matches nothing.
#     Local 15:30 + coordinates -> Africa/Johannesburg (+02) -> 13:30Z.
f=events/cape-town/IMG_7001.jpg
img "$f"
et -Make=HUAWEI -Model=P30 -DateTimeOriginal="2022:02:19 15:30:00" $(gps 33.9035 S 18.4112 E) "$f"
expect "path=$f" taken=2022-02-19T13:30:00Z lat=-33.9035 lon=18.4112 st=timezone_lookup sc=exif_gps \
  make=HUAWEI model=P30 event=7 "note=hidden event: matches nothing"

# === Event 8: Accor Arena (venue 8), 2024-10-26T20:00 CEST = 18:00Z; window [16:00Z, 22:00Z]
# Rule b: local 20:40:00, GPS 18:40:00 -> +02:00 -> 18:40Z.
f=events/paris/IMG_8001.jpg
img "$f"
et -Make=Apple -Model="iPhone 14" -DateTimeOriginal="2024:10:26 20:40:00" -GPSDateStamp="2024:10:26" \
  -GPSTimeStamp="18:40:00" $(gps 48.8386 N 2.3786 E) "$f"
expect "path=$f" taken=2024-10-26T18:40:00Z lat=48.8386 lon=2.3786 st=gps_time sc=exif_gps \
  make=Apple "model=iPhone 14" event=8 "note=offset from GPS time (+02:00)"

# === Google Takeout
T2022="takeout/Takeout/Google Photos/Photos from 2022"
T2024="takeout/Takeout/Google Photos/Photos from 2024"

# Event 8 again: NAME-edited.jpg reuses NAME.jpg.json. 19:20Z at Accor Arena.
f="$T2024/IMG_4006.jpg"
img "$f"
img "$T2024/IMG_4006-edited.jpg"
takeout "$T2024/IMG_4006.jpg.json" "2024-10-26 19:20:00" 48.8387 2.3785 48.8387 2.3785 IMG_4006.jpg
expect "path=$f" taken=2024-10-26T19:20:00Z lat=48.8387 lon=2.3785 st=takeout sc=takeout event=8 \
  "note=Takeout NAME.ext.json"
expect "path=$T2024/IMG_4006-edited.jpg" taken=2024-10-26T19:20:00Z lat=48.8387 lon=2.3785 st=takeout sc=takeout \
  event=8 left_out=edited_copy \
  "note=-edited copy reuses IMG_4006.jpg.json; collapsed into IMG_4006.jpg (its original is beside it)"

# Event 4, Tokyo Dome, window [07:00Z, 13:00Z].
f="$T2022/IMG_4001.jpg"
img "$f"
takeout "$f.json" "2022-08-20 09:30:00" 35.7056 139.7519 35.7056 139.7519 IMG_4001.jpg
expect "path=$f" taken=2022-08-20T09:30:00Z lat=35.7056 lon=139.7519 st=takeout sc=takeout event=4 \
  "note=NAME.ext.json"

# The file's own EXIF (2021, at Lake Biwa) loses to the sidecar.
f="$T2022/IMG_4002.jpg"
img "$f"
et -Make=Google -Model="Pixel 6" -DateTimeOriginal="2021:05:05 12:00:00" -OffsetTimeOriginal="+09:00" \
  $(gps 35.25 N 136.08 E) "$f"
takeout "$f.supplemental-metadata.json" "2022-08-20 10:15:00" 35.7057 139.752 35.7057 139.752 IMG_4002.jpg
expect "path=$f" taken=2022-08-20T10:15:00Z lat=35.7057 lon=139.752 st=takeout sc=takeout make=Google \
  "model=Pixel 6" event=4 "note=NAME.ext.supplemental-metadata.json overrides the file's EXIF date and GPS"

# Truncated suffix; geoDataExif is 0,0 (none) so geoData is used.
f="$T2022/IMG_4003.jpg"
img "$f"
takeout "$f.supplemental-metad.json" "2022-08-20 11:00:00" 0.0 0.0 35.7055 139.7518 IMG_4003.jpg
expect "path=$f" taken=2022-08-20T11:00:00Z lat=35.7055 lon=139.7518 st=takeout sc=takeout event=4 \
  "note=NAME.ext.supplemental-metad.json; geoDataExif 0,0 falls back to geoData"

# 46-character cut inside a long media name: the JSON is the first 46 characters + .json.
long="Giants_vs_Tigers_at_Tokyo_Dome_third_base_side_view.jpg"
f="$T2022/$long"
img "$f"
takeout "$T2022/${long:0:46}.json" "2022-08-20 11:45:00" 35.7054 139.7521 35.7054 139.7521 "$long"
expect "path=$f" taken=2022-08-20T11:45:00Z lat=35.7054 lon=139.7521 st=takeout sc=takeout event=4 \
  "note=46-character cut of the media name (${long:0:46}.json)"

# 46-character cut inside the suffix: PXL_20220820_123000123.jpg.supplemental-metada.json
name="PXL_20220820_123000123.jpg"
cut="$name.supplemental-metadata"
f="$T2022/$name"
img "$f"
takeout "$T2022/${cut:0:46}.json" "2022-08-20 12:30:00" 35.7058 139.7517 35.7058 139.7517 "$name"
expect "path=$f" taken=2022-08-20T12:30:00Z lat=35.7058 lon=139.7517 st=takeout sc=takeout event=4 \
  "note=46-character cut inside the suffix (${cut:0:46}.json)"

# NAME.ext has its own JSON (08:00Z, at sea: no match); NAME(1).ext <-> NAME.ext(1).json
# (12:00Z at Tokyo Dome). Mixing them up changes both answers.
f="$T2022/IMG_4005.jpg"
img "$f"
takeout "$f.json" "2022-08-20 08:00:00" 30.0 150.0 30.0 150.0 IMG_4005.jpg
expect "path=$f" taken=2022-08-20T08:00:00Z lat=30 lon=150 st=takeout sc=takeout "note=NAME.ext.json (Pacific, no match)"
f="$T2022/IMG_4005(1).jpg"
img "$f"
takeout "$T2022/IMG_4005.jpg(1).json" "2022-08-20 12:00:00" 35.7056 139.7519 35.7056 139.7519 IMG_4005.jpg
expect "path=$f" taken=2022-08-20T12:00:00Z lat=35.7056 lon=139.7519 st=takeout sc=takeout event=4 \
  "note=NAME(1).ext uses NAME.ext(1).json"

# photoTakenTime "0" means none: the file's own EXIF (16:05+09:00 -> 07:05Z) gives taken_at;
# the sidecar still gives the coordinates (geoData, geoDataExif being 0,0).
f="$T2022/IMG_4007.jpg"
img "$f"
et -Make=Google -Model="Pixel 6" -DateTimeOriginal="2022:08:20 16:05:00" -OffsetTimeOriginal="+09:00" "$f"
takeout "$f.json" 0 0.0 0.0 35.7053 139.7516 IMG_4007.jpg
expect "path=$f" taken=2022-08-20T07:05:00Z lat=35.7053 lon=139.7516 st=exif_offset sc=takeout make=Google \
  "model=Pixel 6" event=4 "note=photoTakenTime 0 is none: EXIF date, Takeout geoData"

# === travel/: several zones on both hemispheres, far from any venue (match nothing)

# Rule c, Pacific/Auckland in summer (NZDT +13): 14:00 -> 01:00Z. Lake Taupo.
f=travel/nz-lake-taupo.jpg
img "$f"
et -DateTimeOriginal="2024:01:20 14:00:00" $(gps 38.80 S 175.90 E) "$f"
expect "path=$f" taken=2024-01-20T01:00:00Z lat=-38.8 lon=175.9 st=timezone_lookup sc=exif_gps "note=NZDT +13"

# Rule c in a DST gap: America/Chicago, 2024-03-10 02:30 does not exist (02:00 CST -> 03:00
# CDT). Read with the offset in force before the gap (-06:00), i.e. shifted forward to
# 03:30 CDT: 08:30Z.
f=travel/kansas-dst-gap.jpg
img "$f"
et -DateTimeOriginal="2024:03:10 02:30:00" $(gps 38.50 N 98.50 W) "$f"
expect "path=$f" taken=2024-03-10T08:30:00Z lat=38.5 lon=-98.5 st=timezone_lookup sc=exif_gps \
  "note=DST gap: nonexistent 02:30 read with the pre-gap offset (-06:00)"

# Rule c in a DST overlap: Europe/Paris, 2024-10-27 02:30 happens twice (CEST then CET);
# the earlier instant (first occurrence, +02:00) is taken: 00:30Z.
f=travel/france-dst-overlap.jpg
img "$f"
et -DateTimeOriginal="2024:10:27 02:30:00" $(gps 46.80 N 2.20 E) "$f"
expect "path=$f" taken=2024-10-27T00:30:00Z lat=46.8 lon=2.2 st=timezone_lookup sc=exif_gps \
  "note=DST overlap: the earlier instant (+02:00)"

# Rule c, Argentina (-03, no DST): 12:00 -> 15:00Z. Patagonian steppe.
f=travel/patagonia.jpg
img "$f"
et -DateTimeOriginal="2023:02:14 12:00:00" $(gps 45.0 S 70.0 W) "$f"
expect "path=$f" taken=2023-02-14T15:00:00Z lat=-45 lon=-70 st=timezone_lookup sc=exif_gps "note=-03"

# Rule c, Australia/Perth (+08): 09:00 -> 01:00Z. Western Australian outback.
f=travel/western-australia.jpg
img "$f"
et -DateTimeOriginal="2023:07:01 09:00:00" $(gps 25.0 S 122.0 E) "$f"
expect "path=$f" taken=2023-07-01T01:00:00Z lat=-25 lon=122 st=timezone_lookup sc=exif_gps "note=+08"

# Rule b, India (+05:30): 18:20:00 - 12:50:03 = 5:29:57 -> +05:30 -> 12:50:00Z. Thar desert.
f=travel/india-thar.jpg
img "$f"
et -DateTimeOriginal="2024:01:15 18:20:00" -GPSDateStamp="2024:01:15" -GPSTimeStamp="12:50:03" \
  $(gps 27.0 N 72.0 E) "$f"
expect "path=$f" taken=2024-01-15T12:50:00Z lat=27 lon=72 st=gps_time sc=exif_gps "note=GPS time, +05:30"

# Rule b across a date line, South Australia in summer (ACDT +10:30): local 2024-02-10
# 08:00, GPS 2024-02-09 21:30 -> +10:30 -> 2024-02-09T21:30:00Z.
f=travel/south-australia.jpg
img "$f"
et -DateTimeOriginal="2024:02:10 08:00:00" -GPSDateStamp="2024:02:09" -GPSTimeStamp="21:30:00" \
  $(gps 33.5 S 139.5 E) "$f"
expect "path=$f" taken=2024-02-09T21:30:00Z lat=-33.5 lon=139.5 st=gps_time sc=exif_gps "note=GPS time, +10:30"

# Rule b, Nepal (+05:45): local 2023-05-02 03:10, GPS 2023-05-01 21:25 -> 2023-05-01T21:25:00Z.
f=travel/nepal-rara-lake.jpg
img "$f"
et -DateTimeOriginal="2023:05:02 03:10:00" -GPSDateStamp="2023:05:01" -GPSTimeStamp="21:25:00" \
  $(gps 29.527 N 82.087 E) "$f"
expect "path=$f" taken=2023-05-01T21:25:00Z lat=29.527 lon=82.087 st=gps_time sc=exif_gps "note=GPS time, +05:45"

# GPS clock 54 h off (outside +-14 h): rule b does not apply, zone lookup does:
# Atlantic/Reykjavik (+00) -> 16:00Z. Lake Thingvallavatn.
f=travel/iceland-bad-gps-clock.jpg
img "$f"
et -DateTimeOriginal="2023:09:10 16:00:00" -GPSDateStamp="2023:09:08" -GPSTimeStamp="10:00:00" \
  $(gps 64.18 N 21.14 W) "$f"
expect "path=$f" taken=2023-09-10T16:00:00Z lat=64.18 lon=-21.14 st=timezone_lookup sc=exif_gps \
  "note=GPS time 54 h off is rejected; zone lookup instead"

# WebP (exifr cannot read it): either read with an own parser (then these values), or an
# error line with a dedicated unsupported-format code. 10:00-03:00 -> 13:00Z, mid-Atlantic.
f=travel/IMG_9001.webp
img "$f"
et -Make=Google -Model="Pixel 8" -DateTimeOriginal="2023:04:01 10:00:00" -OffsetTimeOriginal="-03:00" \
  $(gps 30.0 N 40.0 W) "$f"
expect "path=$f" taken=2023-04-01T13:00:00Z lat=30 lon=-40 st=exif_offset sc=exif_gps make=Google \
  "model=Pixel 8" "alt_error=unsupported_format" "note=WebP with EXIF chunk"

# A TIFF-based raw: a TIFF marked as DNG 1.4 by exiftool. 18:00+01:00 -> 17:00Z. Lake Constance.
f=travel/L1009002.DNG
img "$WORK/raw.tif"
et -DNGVersion=1.4.0.0 -UniqueCameraModel="LEICA Q2" -Make="LEICA CAMERA AG" -Model="LEICA Q2" \
  -DateTimeOriginal="2022:12:24 18:00:00" -OffsetTimeOriginal="+01:00" $(gps 47.62 N 9.40 E) "$WORK/raw.tif"
mv "$WORK/raw.tif" "$f"
expect "path=$f" taken=2022-12-24T17:00:00Z lat=47.62 lon=9.4 st=exif_offset sc=exif_gps \
  "make=LEICA CAMERA AG" "model=LEICA Q2" "note=DNG (TIFF-based raw), upper-case extension"

# === misc/: rules d and e, coordinate edge cases

f=misc/no-metadata.jpg
img "$f"
expect "path=$f" taken=null lat=null lon=null "note=nothing usable"

# Placeholder date -> null (even with an offset and GPS present).
f=misc/placeholder-date.jpg
img "$f"
et -DateTimeOriginal#="0000:00:00 00:00:00" -OffsetTimeOriginal="+02:00" $(gps 62.5 N 26.0 E) "$f"
expect "path=$f" taken=null lat=62.5 lon=26 sc=exif_gps "note=placeholder 0000:00:00 00:00:00 is null"

# Blank date (spaces, as some cameras write) -> null.
f=misc/blank-date.jpg
img "$f"
et -DateTimeOriginal#="                   " "$f"
expect "path=$f" taken=null lat=null lon=null "note=blank DateTimeOriginal is null"

# Local time, no offset, no GPS at all -> null (never the machine's zone).
f=misc/local-time-no-gps.jpg
img "$f"
et -Make=Canon -Model="Canon EOS R6" -LensModel="RF24-105mm F4 L IS USM" -DateTimeOriginal="2023:03:03 12:00:00" "$f"
expect "path=$f" taken=null lat=null lon=null make=Canon "model=Canon EOS R6" "lens=RF24-105mm F4 L IS USM" \
  "note=local time without zone information stays null"

# GPS exactly 0,0 -> null coordinates; the date has an offset -> 12:00Z.
f=misc/null-island.jpg
img "$f"
et -DateTimeOriginal="2023:01:01 12:00:00" -OffsetTimeOriginal="+00:00" $(gps 0 N 0 E) "$f"
expect "path=$f" taken=2023-01-01T12:00:00Z lat=null lon=null st=exif_offset "note=GPS 0,0 is null"

# Rule d: mvhd only, no location. MP4, faststart.
f=misc/VID_0001.mp4
vid "$f" -metadata creation_time="2023-06-01T12:00:00Z" -movflags +faststart
expect "path=$f" taken=2023-06-01T12:00:00Z lat=null lon=null st=video_mvhd dur=1 "note=mvhd only"

# mvhd creation time 0 -> null.
f=misc/VID_0002.mp4
vid "$f"
expect "path=$f" taken=null lat=null lon=null dur=1 "note=mvhd creation time 0 is null"

# mvhd before 2000 -> ignored -> null. MOV, faststart.
f=misc/VID_0003.mov
vid "$f" -metadata creation_time="1999-12-31T23:00:00Z" -movflags +faststart
expect "path=$f" taken=null lat=null lon=null dur=1 "note=mvhd before 2000 is ignored"

printf 'Shopping list: film, batteries.\n' >misc/notes.txt
skip misc/notes.txt not_media
img "misc/.trashed-1700000000-IMG.jpg"
skip "misc/.trashed-1700000000-IMG.jpg" trashed
img "misc/SYNOFILE_THUMB_M.jpg"
skip "misc/SYNOFILE_THUMB_M.jpg" nas_thumbnail

# === dupes/: the same bytes under another name and folder -> the same id.
mkdir -p dupes/2023
cp misc/no-metadata.jpg dupes/2023/copy-of-no-metadata.jpg
expect "path=dupes/2023/copy-of-no-metadata.jpg" taken=null lat=null lon=null duplicate_of=misc/no-metadata.jpg \
  "note=same bytes as misc/no-metadata.jpg"

# === broken/: each gives an error line and the scan goes on.
img "$WORK/full.jpg" 64x64
et -Make=Apple -Model="iPhone 13 Pro" -DateTimeOriginal="2024:01:01 12:00:00" -OffsetTimeOriginal="+01:00" \
  -ImageDescription="$(printf 'x%.0s' $(seq 1 400))" $(gps 45.0 N 7.0 E) "$WORK/full.jpg"
mkdir -p broken
head -c 200 "$WORK/full.jpg" >broken/truncated.jpg   # cut inside the APP1 (Exif) segment
expect "path=broken/truncated.jpg" error=truncated_file "note=JPEG cut inside its Exif segment"
printf 'This is a text file that only pretends to be a JPEG.\n' >broken/not-really.jpg
expect "path=broken/not-really.jpg" error=unsupported_format "note=text with a .jpg name"
: >broken/empty.jpg
expect "path=broken/empty.jpg" error=empty_file "note=zero bytes"
# ftyp, then a box whose 32-bit size is 3 (smaller than its own header): no moov reachable.
{ printf '\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2'; printf '\x00\x00\x00\x03moov'; head -c 64 /dev/zero; } \
  >broken/garbage-box.mp4
expect "path=broken/garbage-box.mp4" error=corrupt_file "note=box size 3 (garbage)"

# === junk folders and files, skipped and counted by reason
printf '\x00\x00\x00\x01Bud1\x00\x00' >.DS_Store
skip ".DS_Store" system_file
img ".Spotlight-V100/Store-V2/IMG_SPOT.jpg"
skip ".Spotlight-V100/" system_folder
img ".Trashes/501/IMG_TRASH.jpg"
skip ".Trashes/" system_folder
img "DCIM/.thumbnails/1700000000123.jpg"
skip "DCIM/.thumbnails/" thumbnail_folder
img "Recently Deleted/IMG_DEL.jpg"
skip "Recently Deleted/" trashed
img ".hidden-album/IMG_HIDDEN.jpg"
skip ".hidden-album/" hidden_folder

# === damaged/: real-structure files with a damaged part; each still gives its metadata.
# shellcheck source=scripts/make-damaged-fixtures.sh
source "$ROOT/scripts/make-damaged-fixtures.sh"

# --- answer key ------------------------------------------------------------------------
cd "$LIB"
find . -type f | sed 's|^\./||' | LC_ALL=C sort | while IFS= read -r p; do
  printf '%s\t%s\n' "$p" "$(sha256sum "$p" | cut -d' ' -f1)"
done >"$WORK/ids.tsv"

python3 - "$EXPECT_RAW" "$WORK/ids.tsv" "$KEY" <<'PY'
import json, os, sys
raw, ids_file, out = sys.argv[1:4]
ids = dict(line.rstrip('\n').split('\t') for line in open(ids_file, encoding='utf-8'))
VIDEO = ('.mov', '.mp4', '.m4v', '.3gp')
def num(v): return None if v == 'null' else float(v)
media_lines, skips = [], []
for line in open(raw, encoding='utf-8'):
    f = dict(part.split('=', 1) for part in line.rstrip('\n').split('\t'))
    path = f['path']
    if 'skip' in f:
        skips.append({'path': path, 'reason': f['skip']}); continue
    entry = {'path': path}
    if 'error' in f:
        entry['error'] = {'code': f['error']}
    else:
        video = path.lower().endswith(VIDEO)
        entry['media'] = {
            'id': 'sha256:' + ids[path],
            'taken_at': None if f.get('taken', 'null') == 'null' else f['taken'],
            'latitude': num(f.get('lat', 'null')),
            'longitude': num(f.get('lon', 'null')),
            'media_type': 'video' if video else 'photo',
            'filename': os.path.basename(path),
            'duration_seconds': float(f['dur']) if 'dur' in f else None,
            'device_make': f.get('make'),
            'device_model': f.get('model'),
            'device_lens_model': f.get('lens'),
        }
        entry['source'] = {'taken_at': f.get('st'), 'coordinates': f.get('sc')}
        if 'warn' in f: entry['warnings'] = f['warn'].split(',')
        if 'alt_error' in f: entry['alt_error'] = f['alt_error']
        if 'duplicate_of' in f: entry['duplicate_of'] = f['duplicate_of']
        # Not sent by default: the class a positive signal gives it (src/scan/evidence).
        if 'left_out' in f: entry['left_out'] = f['left_out']
    entry['event_id'] = int(f['event']) if 'event' in f else None
    entry['note'] = f['note']
    media_lines.append(entry)
media_lines.sort(key=lambda e: e['path'])
with open(os.path.join(out, 'scan.jsonl'), 'w', encoding='utf-8') as fh:
    for e in media_lines:
        fh.write(json.dumps(e, ensure_ascii=False) + '\n')
reasons = {}
for s in skips: reasons[s['reason']] = reasons.get(s['reason'], 0) + 1
media = [e for e in media_lines if 'media' in e]
summary = {
    'lines': len(media_lines),
    'media': len(media),
    'errors': len(media_lines) - len(media),
    'skipped_total': len(skips),
    'skipped_by_reason': reasons,
    'skipped': skips,
    'missing_coordinates': sum(1 for e in media if e['media']['latitude'] is None),
    'missing_taken_at': sum(1 for e in media if e['media']['taken_at'] is None),
    'missing_both': sum(1 for e in media if e['media']['latitude'] is None and e['media']['taken_at'] is None),
    # As the service would reject them: coordinates are checked first, then the capture time.
    'would_reject': {
        'missing_coordinates': sum(1 for e in media if e['media']['latitude'] is None),
        'missing_taken_at': sum(1 for e in media if e['media']['latitude'] is not None and e['media']['taken_at'] is None),
    },
    'photos': sum(1 for e in media if e['media']['media_type'] == 'photo'),
    'videos': sum(1 for e in media if e['media']['media_type'] == 'video'),
    'errors_by_code': {c: sum(1 for e in media_lines if e.get('error', {}).get('code') == c)
                       for c in sorted({e['error']['code'] for e in media_lines if 'error' in e})},
    # What `camroll sync` against the demo catalog must give (anchor events, anchors.md):
    # matched media per event id; event 6 is unlicensed (venue_id 6), event 7 hidden.
    'sync_expected': {
        # One item per moment: a file left out (an edited copy beside its original) is not sent.
        'matched_media_by_event': {str(ev): sum(1 for e in media if e['event_id'] == ev and 'left_out' not in e)
                                   for ev in (1, 2, 3, 4, 5, 8)},
        'unlicensed_at_venue_6': sum(1 for e in media if e['event_id'] == 6),
        'hidden_event_7_files': sum(1 for e in media if e['event_id'] == 7),
    },
    'duplicate_groups': 1,
    'duplicate_files': sum(1 for e in media if 'duplicate_of' in e),
    'distinct_ids': len({e['media']['id'] for e in media}),
}
with open(os.path.join(out, 'summary.json'), 'w', encoding='utf-8') as fh:
    json.dump(summary, fh, indent=2, ensure_ascii=False); fh.write('\n')
print(f"{len(media)} media, {summary['errors']} errors, {len(skips)} skipped")
PY
