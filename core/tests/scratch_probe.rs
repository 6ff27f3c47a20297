use std::path::Path;
fn copy(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() { copy(&p, &dst.join(e.file_name())); } else { std::fs::copy(&p, dst.join(e.file_name())).unwrap(); }
    }
}
#[test]
fn probe() {
    let m = muster_core::load_module(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini"));
    match &m { Ok(m) => { println!("OK boxes={} lines={} warnings={:?}", m.board.boxes.len(), m.board.lines.len(), m.warnings); let s=&m.scenarios[0]; println!("{:?} {:?}", s.army_maximum(m, muster_core::ids::SideId(0)), s.army_maximum(m, muster_core::ids::SideId(1))); } Err(e) => println!("ERR {e}") }
    let cases: &[(&str, &str, &str)] = &[
        ("map.xml", "  </box>\n  <box name=\"Millbrook\"", "  </bx>\n  <box name=\"Millbrook\""),
        ("map.xml", "</map>\n", ""),
        ("map.xml", "<box name=\"Millbrook\" owner=\"north\" x=\"300\" y=\"60\">", "<box name=\"Millbrook\" owner=\"north\" x=\"300\" y=\"60\""),
        ("sides.xml", "<side id=\"south\" name=\"South\" color=\"#8a8d91\"/>", "<side id=\"south\" name=\"South\" color=\"#8a8d91\">"),
        ("sides.xml", "</sides>\n", "</sides>\n<sides/>\n"),
        ("sides.xml", "</sides>\n", "</sides>\n</sides>\n"),
        ("sides.xml", "name=\"South\"", "name=\"S&uuml;d\""),
        ("sides.xml", "name=\"South\"", "name=\"S<d\""),
        ("sides.xml", "name=\"South\"", "name=South"),
        ("sides.xml", "<!-- Test", "<!-- Te--st"),
    ];
    for (f, a, b) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mini");
        copy(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mini")), &dir);
        let p = dir.join(f);
        let t = std::fs::read_to_string(&p).unwrap();
        assert_eq!(t.matches(a).count(), 1, "{a}");
        std::fs::write(&p, t.replace(a, b)).unwrap();
        match muster_core::load_module(&dir) { Ok(_) => println!("{f}: OK"), Err(e) => for d in &e.diagnostics { println!("{}", d.to_string().replace(&format!("{}/", dir.display()), "")) } }
    }
}
