# Sourced by make-fixtures.sh (inside fixtures/library, with its `et` and `expect`): files whose
# structure is damaged the way real cameras and tools damage it, made with exiftool and a few
# lines of byte surgery. Each must still give its metadata, with the skip named in
# source.warnings (`warn=` lists the codes, see src/scan/extract/warnings.ts).
# Bases: misc/no-metadata.jpg and events/london/DSC_3002.tif, made earlier by the same script.

mkdir -p damaged

# surgery FILE: runs the Python on stdin with `data` (a bytearray of FILE) and writes it back.
surgery() {
  python3 -c "
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, 'rb').read())
def app1_tiff():
    return data.index(b'Exif\x00\x00') + 6
def ifd_entry(tiff, ifd, tag):
    bo = '<' if data[tiff:tiff + 2] == b'II' else '>'
    for k in range(struct.unpack(bo + 'H', data[tiff + ifd:tiff + ifd + 2])[0]):
        e = tiff + ifd + 2 + 12 * k
        if struct.unpack(bo + 'H', data[e:e + 2])[0] == tag:
            return e, bo
    raise SystemExit('tag %x not found' % tag)
def replace(old, new):
    assert len(old) == len(new) and data.count(old) == 1, old
    data[data.index(old):data.index(old) + len(old)] = new
$(cat)
open(path, 'wb').write(bytes(data))
" "$1"
}

# 1. IFD0's Model entry gets TIFF type 0 (seen in a Sony compact's files). The entry is skipped;
#    Make in IFD0, the Exif IFD and the GPS IFD are still read (exiftool does the same).
#    12:00 at +02:00 -> 2021-05-01T10:00:00Z. Hallstatt, 168 km from the nearest venue.
f=damaged/DSC00001-type0-entry.jpg
cp misc/no-metadata.jpg "$f"
et -Make=SONY -Model=DSC-W55 -DateTimeOriginal="2021:05:01 12:00:00" -OffsetTimeOriginal="+02:00" \
  $(gps 47.5622 N 13.6493 E) "$f"
surgery "$f" <<'PY'
tiff = app1_tiff()
bo = '<' if data[tiff:tiff + 2] == b'II' else '>'
entry, bo = ifd_entry(tiff, struct.unpack(bo + 'I', data[tiff + 4:tiff + 8])[0], 0x0110)
data[entry + 2:entry + 4] = struct.pack(bo + 'H', 0)
PY
expect "path=$f" taken=2021-05-01T10:00:00Z lat=47.5622 lon=13.6493 st=exif_offset sc=exif_gps \
  make=SONY warn=skipped_entry "note=IFD0 Model entry of TIFF type 0 skipped, the rest read"

# 2. Model "MAVICA\0 3ghx7y\0": EXIF text ends at the first NUL, the rest is buffer garbage.
#    09:30 at -03:00 -> 2021-05-02T12:30:00Z. Ushuaia.
f=damaged/MVC-002-nul-model.jpg
cp misc/no-metadata.jpg "$f"
et -Make=SONY -Model="MAVICA_ 3ghx7y" -DateTimeOriginal="2021:05:02 09:30:00" -OffsetTimeOriginal="-03:00" \
  $(gps 54.8019 S 68.3030 W) "$f"
surgery "$f" <<'PY'
replace(b'MAVICA_ 3ghx7y\x00', b'MAVICA\x00 3ghx7y\x00')
PY
expect "path=$f" taken=2021-05-02T12:30:00Z lat=-54.8019 lon=-68.303 st=exif_offset sc=exif_gps \
  make=SONY model=MAVICA "note=model cut at its first NUL"

# 3. The XMP APP1 segment's length is two bytes short. The walk goes on at the real marker and
#    reads the whole packet: the lens comes from XMP only. 23:10 at +01:00 -> 22:10Z. Svalbard.
f=damaged/IMG_0003-app1-short.jpg
cp misc/no-metadata.jpg "$f"
et -Make=Canon -Model="Canon EOS 5D" -DateTimeOriginal="2021:05:03 23:10:00" -OffsetTimeOriginal="+01:00" \
  $(gps 78.2232 N 15.6267 E) -XMP-exifEX:LensModel="EF50mm f/1.8 II" "$f"
surgery "$f" <<'PY'
at = data.index(b'http://ns.adobe.com/xap/1.0/\x00') - 4
assert data[at:at + 2] == b'\xff\xe1'
length = struct.unpack('>H', data[at + 2:at + 4])[0]
data[at + 2:at + 4] = struct.pack('>H', length - 2)
PY
expect "path=$f" taken=2021-05-03T22:10:00Z lat=78.2232 lon=15.6267 st=exif_offset sc=exif_gps \
  make=Canon "model=Canon EOS 5D" "lens=EF50mm f/1.8 II" warn=skipped_segment \
  "note=APP1 (XMP) length two bytes short: resynchronised, XMP still read"

# 4. XMP with a numeric entity past U+10FFFF (kept as written) and a hex entity (decoded).
#    EXIF has only a local time and no GPS; the embedded XMP date carries +02:00: rule a,
#    20:00 at +02:00 -> 2021-05-04T18:00:00Z. No coordinates anywhere.
f=damaged/IMG_0004-xmp-entities.jpg
cp misc/no-metadata.jpg "$f"
et -DateTimeOriginal="2021:05:04 20:00:00" -XMP-exif:DateTimeOriginal="2021:05:04 20:00:00+02:00" \
  -XMP-tiff:Make="Smith WWWWWW Sons" -XMP-tiff:Model="Model QQQQQQQQQQQQQ" "$f"
surgery "$f" <<'PY'
replace(b'WWWWWW', b'&#x26;')
replace(b'QQQQQQQQQQQQQ', b'&#9999999999;')
PY
expect "path=$f" taken=2021-05-04T18:00:00Z lat=null lon=null st=xmp "make=Smith & Sons" \
  "model=Model &#9999999999;" "note=XMP entities; embedded XMP date with offset under rule a"

# 5. BigTIFF (II+, 64-bit offsets): exiftool writes classic TIFF, so its IFDs are rewritten as
#    BigTIFF ones at the end of the file (strip offsets unchanged). 14:45 at +02:00 -> 12:45Z.
f=damaged/scan-0005-bigtiff.tif
cp events/london/DSC_3002.tif "$f"
et -all= "$f"
et -Make=Hasselblad -Model="Flextight X5" -DateTimeOriginal="2021:05:05 14:45:00" \
  -OffsetTimeOriginal="+02:00" $(gps 47.5622 N 13.6493 E) "$f"
surgery "$f" <<'PY'
SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4}
bo = '<' if data[0:2] == b'II' else '>'
u16 = lambda p: struct.unpack(bo + 'H', data[p:p + 2])[0]
u32 = lambda p: struct.unpack(bo + 'I', data[p:p + 4])[0]
out = bytearray(data)
def big_ifd(ifd, pointers):
    # Entries: tag, type, count (8 bytes), value or offset (8 bytes); values over 8 bytes appended.
    entries = []
    for k in range(u16(ifd)):
        e = ifd + 2 + 12 * k
        tag, typ, count = u16(e), u16(e + 2), u32(e + 4)
        size = SIZES[typ] * count
        raw = bytes(data[e + 8:e + 8 + size]) if size <= 4 else bytes(data[u32(e + 8):u32(e + 8) + size])
        if tag in pointers:
            typ, raw = 16, struct.pack(bo + 'Q', pointers[tag])  # LONG8
        entries.append((tag, typ, count, raw))
    body = bytearray()
    values = bytearray()
    start = len(out)
    table_len = 8 + 20 * len(entries) + 8
    for tag, typ, count, raw in entries:
        if len(raw) <= 8:
            field = raw.ljust(8, b'\x00')
        else:
            field = struct.pack(bo + 'Q', start + table_len + len(values))
            values += raw + (b'\x00' if len(raw) % 2 else b'')
        body += struct.pack(bo + 'HHQ', tag, typ, count) + field
    out.extend(struct.pack(bo + 'Q', len(entries)) + body + struct.pack(bo + 'Q', 0) + values)
    return start
ifd0 = u32(4)
ptr = {}
for k in range(u16(ifd0)):
    e = ifd0 + 2 + 12 * k
    if u16(e) in (0x8769, 0x8825):
        ptr[u16(e)] = big_ifd(u32(e + 8), {})
new0 = big_ifd(ifd0, ptr)
out[0:16] = data[0:2] + struct.pack(bo + 'HHHQ', 43, 8, 0, new0)
data[:] = out
PY
expect "path=$f" taken=2021-05-05T12:45:00Z lat=47.5622 lon=13.6493 st=exif_offset sc=exif_gps \
  make=Hasselblad "model=Flextight X5" "note=BigTIFF read like TIFF"
