import { crc32, deflateRawSync } from 'node:zlib';

/** A minimal zip writer for test fixtures (stored sizes can be forged to imitate hostile files). */
export function zip(files: { name: string; data: Buffer; forgeSize?: number }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const compressed = deflateRawSync(file.data);
    const name = Buffer.from(file.name);
    const size = file.forgeSize ?? file.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(file.data), 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, compressed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(file.data), 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + compressed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** An xlsx whose first sheet holds these rows as inline strings (a cell '=…' becomes a formula). */
export function xlsx(rows: string[][]): Buffer {
  const sheet = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${rows
    .map(
      (cells, r) =>
        `<row r="${r + 1}">${cells
          .map((cell, c) => {
            const ref = `${String.fromCharCode(65 + c)}${r + 1}`;
            return cell.startsWith('=')
              ? `<c r="${ref}"><f>${esc(cell.slice(1))}</f><v>0</v></c>`
              : `<c r="${ref}" t="inlineStr"><is><t>${esc(cell)}</t></is></c>`;
          })
          .join('')}</row>`,
    )
    .join('')}</sheetData></worksheet>`;
  return zip([
    { name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
    { name: 'xl/workbook.xml', data: Buffer.from('<workbook/>') },
    { name: 'xl/worksheets/sheet1.xml', data: Buffer.from(sheet) },
  ]);
}

/**
 * The outline of a password-protected Office workbook (MS-OFFCRYPTO): an OLE compound file whose
 * directory names the EncryptionInfo and EncryptedPackage streams. Header and one directory sector
 * only, with no real cipher text: enough for anything that reads the container's shape.
 */
export function officeEncrypted(): Buffer {
  const header = Buffer.alloc(512);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x3e, 24); // minor version
  header.writeUInt16LE(3, 26); // major version 3: 512-byte sectors
  header.writeUInt16LE(0xfffe, 28); // byte order
  header.writeUInt16LE(9, 30); // sector shift
  header.writeUInt16LE(6, 32); // mini sector shift
  header.writeUInt32LE(1, 44); // FAT sectors
  header.writeUInt32LE(1, 48); // first directory sector
  header.writeUInt32LE(4096, 56); // mini stream cutoff
  header.writeUInt32LE(0xfffffffe, 60); // no mini FAT
  header.writeUInt32LE(0xfffffffe, 68); // no DIFAT
  header.writeUInt32LE(0, 76); // FAT in sector 0
  for (let i = 80; i < 512; i += 4) header.writeUInt32LE(0xffffffff, i);
  const fat = Buffer.alloc(512, 0xff);
  fat.writeUInt32LE(0xfffffffd, 0); // sector 0: FAT
  fat.writeUInt32LE(0xfffffffe, 4); // sector 1: directory, end of chain
  const directory = Buffer.alloc(512);
  ['Root Entry', 'EncryptionInfo', 'EncryptedPackage', ''].forEach((name, i) => {
    const entry = directory.subarray(i * 128, (i + 1) * 128);
    Buffer.from(name, 'utf16le').copy(entry, 0);
    entry.writeUInt16LE(name ? (name.length + 1) * 2 : 0, 64);
    entry.writeUInt8(i === 0 ? 5 : name ? 2 : 0, 66); // root storage, streams
  });
  return Buffer.concat([header, fat, directory]);
}
