#!/usr/bin/env bash
# Regenerates fixtures/origins/: a Google Takeout of one New York week in July 2024, made of
# tiny real files, where each file's origin is known (see fixtures/README.md, "Origins").
# The JSON sidecars carry the members exactly as Takeout writes them (`googlePhotosOrigin`,
# `appSource`, `trashed`, `.supplemental-metadata.json` names); the HEIC still and its video
# carry Apple's content identifier where an iPhone writes it (the MakerNote's tag 0x0011, the
# movie's `com.apple.quicktime.content.identifier` key).
#
# The user was at event 1 (Madison Square Garden, 2024-07-12 20:00 EDT = 2024-07-13T00:00Z);
# their partner was at event 17664 (Citi Field, 2024-07-13 19:00 EDT = 23:00Z) and shared
# two photos through partner sharing; a photo of event 17656 (Citi Field, 2024-07-10 18:40
# EDT = 22:40Z) is in the trash.
#
# Needs: exiftool, ImageMagick 6 (convert), ffmpeg (libx264), heif-enc, python3, jq. CI
# does not: the generated files are committed.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/fixtures/origins"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
rm -rf "$OUT"
G="$OUT/Takeout/Google Photos"
P="$G/Photos from 2024"
mkdir -p "$P" "$G/Trash"
export TZ=UTC

# next_colour sets COLOUR: each file gets its own, so no two share bytes by accident (not
# called in $(...): the counter must survive in this shell).
N=0
COLOUR=
next_colour() {
  N=$((N + 1))
  COLOUR="$(printf '#%02x%02x%02x' $(((N * 41 + 90) % 256)) $(((N * 67 + 13) % 256)) $(((N * 29 + 200) % 256)))"
}
et() { exiftool -q -q -overwrite_original "$@"; }
jpg() { next_colour; convert -size 24x24 "xc:$COLOUR" -strip -quality 80 "JPEG:$1"; }
png() { next_colour; convert -size 24x24 "xc:$COLOUR" -strip -define png:exclude-chunks=date,time "$1"; }
heic() {
  next_colour
  convert -size 24x24 "xc:$COLOUR" -strip "$WORK/src.png"
  heif-enc -q 50 -o "$1" "$WORK/src.png" >/dev/null
}
# clip OUT SECONDS [ffmpeg -metadata args...]: a short H.264 clip with QuickTime keys (mdta).
clip() {
  local out="$1" seconds="$2"
  shift 2
  next_colour
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "color=c=$COLOUR:s=16x16:r=10:d=$seconds" \
    -c:v libx264 -pix_fmt yuv420p -preset ultrafast -map_metadata -1 -fflags +bitexact -flags:v +bitexact \
    -movflags use_metadata_tags "$@" "$out"
}
# apple_note FILE ID: an Apple MakerNote ("Apple iOS", version 1, big-endian IFD) whose tag
# 0x0011 is ID, as iPhones write it; exiftool puts it into the file's EXIF as a block.
apple_note() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
ident = sys.argv[2].encode() + b'\0'
header = b'Apple iOS\0' + b'\0\x01' + b'MM'
entries = 2
value_at = len(header) + 2 + entries * 12 + 4
ifd = struct.pack('>H', entries)
ifd += struct.pack('>HHII', 0x0001, 9, 1, 14)  # MakerNoteVersion
ifd += struct.pack('>HHII', 0x0011, 2, len(ident), value_at)  # ContentIdentifier
ifd += b'\0\0\0\0'
open(sys.argv[1], 'wb').write(header + ifd + ident)
PY
}
# sidecar MEDIA WHEN LAT LON ORIGIN_JSON [EXTRA_JSON]: MEDIA.supplemental-metadata.json as
# Takeout writes it (0,0 where it has no place); ORIGIN_JSON is googlePhotosOrigin.
sidecar() {
  local media="$1" when="$2" lat="$3" lon="$4" origin="$5" extra="${6:-{\}}"
  local ts formatted
  ts="$(date -u -d "$when" +%s)"
  formatted="$(date -u -d "$when" '+%b %-d, %Y, %-I:%M:%S %p UTC')"
  jq -n --arg title "$(basename "$media")" --arg ts "$ts" --arg f "$formatted" \
    --argjson lat "$lat" --argjson lon "$lon" --argjson origin "$origin" --argjson extra "$extra" '{
      title: $title, description: "", imageViews: "0",
      creationTime: {timestamp: "1721000000", formatted: "Jul 14, 2024, 11:33:20 PM UTC"},
      photoTakenTime: {timestamp: $ts, formatted: $f},
      geoData: {latitude: $lat, longitude: $lon, altitude: 0.0, latitudeSpan: 0.0, longitudeSpan: 0.0},
      geoDataExif: {latitude: $lat, longitude: $lon, altitude: 0.0, latitudeSpan: 0.0, longitudeSpan: 0.0},
      url: "https://photos.google.com/photo/AF1QipOrigins",
      googlePhotosOrigin: $origin
    } + $extra' >"$media.supplemental-metadata.json"
}
IOS='{"mobileUpload": {"deviceType": "IOS_PHONE"}}'
IPHONE=(-Make=Apple -Model="iPhone 15 Pro")
MSG=(40.7505 -73.9934)   # Madison Square Garden, event 1
CITI=(40.7571 -73.8458)  # Citi Field, events 17656 and 17664
msg_gps=(-GPSLatitude=40.7505 -GPSLatitudeRef=N -GPSLongitude=73.9934 -GPSLongitudeRef=W)

# --- own, at event 1 -------------------------------------------------------------------
# A Live Photo paired by Apple's content identifier: the still (MakerNote) and its video
# (QuickTime key), 20:30:00 EDT = 2024-07-13T00:30:00Z. Takeout gives the video no sidecar.
ID1=6F1C2B0A-3D4E-4F50-8A6B-7C8D9E0F1A2B
heic "$P/IMG_1201.HEIC"
apple_note "$WORK/note1.bin" "$ID1"
et "${IPHONE[@]}" -DateTimeOriginal="2024:07:12 20:30:00" -OffsetTimeOriginal="-04:00" "${msg_gps[@]}" \
  "-MakerNotes<=$WORK/note1.bin" "$P/IMG_1201.HEIC"
sidecar "$P/IMG_1201.HEIC" "2024-07-13 00:30:00" "${MSG[@]}" "$IOS"
clip "$P/IMG_1201.MP4" 2.5 -metadata "com.apple.quicktime.content.identifier=$ID1" \
  -metadata "com.apple.quicktime.creationdate=2024-07-12T20:29:59-0400" \
  -metadata "com.apple.quicktime.location.ISO6709=+40.7505-073.9934/" \
  -metadata com.apple.quicktime.make=Apple -metadata "com.apple.quicktime.model=iPhone 15 Pro"

# A Live Photo whose identifiers were lost (an editor re-saved both): paired by the stem, a
# video of 3 s and capture times 1 s apart. 20:40:00 EDT = 2024-07-13T00:40:00Z.
heic "$P/IMG_1202.HEIC"
et "${IPHONE[@]}" -DateTimeOriginal="2024:07:12 20:40:00" -OffsetTimeOriginal="-04:00" "${msg_gps[@]}" \
  "$P/IMG_1202.HEIC"
sidecar "$P/IMG_1202.HEIC" "2024-07-13 00:40:00" "${MSG[@]}" "$IOS"
clip "$P/IMG_1202.MOV" 3 -metadata "com.apple.quicktime.creationdate=2024-07-12T20:40:01-0400" \
  -metadata "com.apple.quicktime.location.ISO6709=+40.7505-073.9934/"

# An edited copy beside its original; Takeout gives the copy no sidecar of its own (it takes
# the original's). 20:50:00 EDT = 2024-07-13T00:50:00Z.
jpg "$P/IMG_1203.jpg"
et "${IPHONE[@]}" -DateTimeOriginal="2024:07:12 20:50:00" -OffsetTimeOriginal="-04:00" "${msg_gps[@]}" \
  "$P/IMG_1203.jpg"
sidecar "$P/IMG_1203.jpg" "2024-07-13 00:50:00" "${MSG[@]}" "$IOS"
jpg "$P/IMG_1203-edited.jpg"
et "${IPHONE[@]}" -DateTimeOriginal="2024:07:12 20:50:00" -OffsetTimeOriginal="-04:00" "${msg_gps[@]}" \
  "$P/IMG_1203-edited.jpg"

# A shared album's photo taken by a friend at the same concert: shared_album.
jpg "$P/IMG_2001.jpg"
et -Make=samsung -Model=SM-S918B -DateTimeOriginal="2024:07:12 21:00:00" -OffsetTimeOriginal="-04:00" "$P/IMG_2001.jpg"
sidecar "$P/IMG_2001.jpg" "2024-07-13 01:00:00" "${MSG[@]}" '{"fromSharedAlbum": {}}'

# --- not the user's evidence ------------------------------------------------------------
# The partner's two photos at Citi Field during event 17664 (19:30 and 19:40 EDT =
# 23:30Z, 23:40Z), with the partner's camera: partner_shared.
for pair in "PXL_20240713_233000123.jpg|2024-07-13 23:30:00|19:30:00" "PXL_20240713_234000456.jpg|2024-07-13 23:40:00|19:40:00"; do
  IFS='|' read -r name when local <<<"$pair"
  jpg "$P/$name"
  et -Make=Google -Model="Pixel 8" -DateTimeOriginal="2024:07:13 $local" -OffsetTimeOriginal="-04:00" "$P/$name"
  sidecar "$P/$name" "$when" "${CITI[@]}" '{"fromPartnerSharing": {}}'
done

# A photo received through WhatsApp (its own name, no EXIF): received, by the device folder.
jpg "$P/IMG-20240713-WA0001.jpg"
sidecar "$P/IMG-20240713-WA0001.jpg" "2024-07-13 23:45:00" 0.0 0.0 \
  '{"mobileUpload": {"deviceFolder": {"localFolderName": "WhatsApp Images"}, "deviceType": "ANDROID_PHONE"}}' \
  '{"appSource": {"androidPackageName": "com.whatsapp"}}'

# An Android screenshot (device folder "Screenshots") and an iOS one (UserComment).
png "$P/Screenshot_20240713-013000.png"
sidecar "$P/Screenshot_20240713-013000.png" "2024-07-13 01:30:00" 0.0 0.0 \
  '{"mobileUpload": {"deviceFolder": {"localFolderName": "Screenshots"}, "deviceType": "ANDROID_PHONE"}}'
png "$P/IMG_1205.PNG"
et -UserComment=Screenshot -DateTimeOriginal="2024:07:12 22:10:00" "$P/IMG_1205.PNG"
sidecar "$P/IMG_1205.PNG" "2024-07-13 02:10:00" 0.0 0.0 "$IOS"

# A photo of event 17656 at Citi Field (19:00 EDT = 23:00Z), then put in the trash.
jpg "$G/Trash/IMG_1100.jpg"
et "${IPHONE[@]}" -DateTimeOriginal="2024:07:10 19:00:00" -OffsetTimeOriginal="-04:00" "$G/Trash/IMG_1100.jpg"
sidecar "$G/Trash/IMG_1100.jpg" "2024-07-10 23:00:00" "${CITI[@]}" "$IOS" '{"trashed": true}'

# A plain PNG with no metadata at all: unknown, and sent.
png "$P/drawing.png"

touch -d 2024-07-15T00:00:00Z "$P"/* "$G/Trash"/*
echo "fixtures/origins: $(find "$OUT" -type f | wc -l) files"
