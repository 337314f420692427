//! A ZIP archive of stored (uncompressed) files (PKWARE APPNOTE 6.3: local headers, the
//! central directory, its end record). A pass is a few kilobytes, mostly PNG and a
//! signature that do not compress, so deflate would buy nothing. Read back by Python's
//! zipfile in the tests, which checks every CRC.

/// The CRC-32 of ZIP (IEEE 802.3, reflected, polynomial 0xEDB88320), bit by bit: a pass
/// is a few kilobytes, so a table would cost more bytes than it saves time.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// The archive of `files` (name, content) in their order. Names are ASCII; times are
/// the DOS epoch (1980-01-01 00:00), since nothing reads them.
pub fn stored(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let offset = out.len() as u32;
        // version 1.0, no flags, stored, time 00:00, date 1980-01-01, CRC, sizes, name.
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&[10, 0, 0, 0, 0, 0, 0, 0, 0x21, 0]);
            v.extend_from_slice(&crc32(data).to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(data.len() as u32).to_le_bytes());
            v.extend_from_slice(&(name.len() as u16).to_le_bytes());
            v.extend_from_slice(&[0, 0]);
        };
        out.extend_from_slice(b"PK\x03\x04");
        common(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);

        // Made by version 1.0 (MS-DOS); no comment, disk 0, no attributes.
        central.extend_from_slice(b"PK\x01\x02\x0a\x00");
        common(&mut central);
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let start = out.len() as u32;
    let count = (files.len() as u16).to_le_bytes();
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&count);
    out.extend_from_slice(&count);
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_the_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc32(b"a"), 0xE8B7_BE43);
    }

    #[test]
    fn an_empty_archive_is_just_its_end_record() {
        assert_eq!(
            stored(&[]),
            b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
        );
    }

    /// Python's zipfile reads it back: names, contents, every CRC (`testzip`).
    #[test]
    fn zipfile_reads_it_back() {
        let big: Vec<u8> = (0..70_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let files: [(&str, &[u8]); 4] = [
            ("pass.json", b"{\"a\":1}"),
            ("icon@2x.png", &[0x89, b'P', b'N', b'G', 0, 255]),
            ("empty", b""),
            ("big.bin", &big),
        ];
        let archive = stored(&files);
        let dir = std::env::temp_dir().join(format!("cardapi-zip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("test.zip");
        std::fs::write(&path, &archive).unwrap();
        let script = "import sys, zipfile, hashlib\n\
            z = zipfile.ZipFile(sys.argv[1])\n\
            assert z.testzip() is None\n\
            for i in z.infolist():\n\
            \x20   assert i.compress_type == zipfile.ZIP_STORED\n\
            \x20   print(i.filename, i.file_size, hashlib.sha256(z.read(i)).hexdigest())\n";
        let out = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(&path)
            .output()
            .expect("python3 runs");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let expected: String = files
            .iter()
            .map(|(name, data)| {
                use sha2::Digest;
                let digest = crate::domain::signing::hex(&sha2::Sha256::digest(data));
                format!("{name} {} {digest}\n", data.len())
            })
            .collect();
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    }
}
