#!/usr/bin/env python3
"""Checks lazyfs's model of a power cut (Tests/PowerCut/lazyfs.py). Needs root and /dev/fuse.

  python3 Tests/PowerCut/test_lazyfs.py        (or: python3 -m unittest Tests/PowerCut/test_lazyfs.py)
"""
import fcntl, mmap, os, shutil, sqlite3, subprocess, sys, tempfile, time, unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lazyfs  # noqa: E402


def fsync_path(path):
    descriptor = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if os.path.isdir(path) else 0))
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write(path, data, sync=False, flags=0):
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | flags, 0o600)
    try:
        os.write(descriptor, data)
        if sync:
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def read(path):
    with open(path, "rb") as f:
        return f.read()


class LazyFSTests(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="lazyfs-test-")
        self.disk = os.path.join(self.scratch, "disk")
        self.mnt = os.path.join(self.scratch, "mnt")
        os.makedirs(os.path.join(self.disk, "folder"))
        write(os.path.join(self.disk, "old"), b"old data")
        write(os.path.join(self.disk, "folder", "kept"), b"kept")
        self.mount = lazyfs.Mount(self.disk, self.mnt)

    def tearDown(self):
        self.mount.cut()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def m(self, *parts):
        return os.path.join(self.mnt, *parts)

    def d(self, *parts):
        return os.path.join(self.disk, *parts)

    def test_what_was_there_is_served(self):
        self.assertEqual(read(self.m("old")), b"old data")
        self.assertEqual(sorted(os.listdir(self.m())), ["folder", "old"])
        self.assertEqual(read(self.m("folder", "kept")), b"kept")

    def test_written_and_fsynced_with_its_folder_survives(self):
        write(self.m("new"), b"x" * 100000, sync=True, flags=os.O_EXCL | os.O_NOFOLLOW)
        fsync_path(self.m())
        self.mount.cut()
        self.assertEqual(read(self.d("new")), b"x" * 100000)

    def test_written_not_fsynced_is_gone(self):
        write(self.m("new"), b"lost")
        self.assertEqual(read(self.m("new")), b"lost")  # readers see it, as the page cache serves it
        self.mount.cut()
        self.assertFalse(os.path.exists(self.d("new")))

    def test_created_durably_but_data_not_fsynced_is_empty(self):
        write(self.m("new"), b"lost")
        fsync_path(self.m())
        self.mount.cut()
        self.assertEqual(read(self.d("new")), b"")

    def test_data_fsynced_but_name_not_is_gone(self):
        write(self.m("new"), b"data", sync=True)
        self.mount.cut()
        self.assertFalse(os.path.exists(self.d("new")))

    def test_overwrite_not_fsynced_keeps_the_old_data(self):
        write(self.m("old"), b"new data that is longer")
        self.mount.cut()
        self.assertEqual(read(self.d("old")), b"old data")

    def test_rename_without_folder_fsync_is_undone(self):
        write(self.m("tmp"), b"payload", sync=True)
        fsync_path(self.m())
        os.rename(self.m("tmp"), self.m("final"))
        self.assertEqual(read(self.m("final")), b"payload")
        self.mount.cut()
        self.assertEqual(sorted(os.listdir(self.disk)), ["folder", "old", "tmp"])
        self.assertEqual(read(self.d("tmp")), b"payload")

    def test_rename_with_folder_fsync_is_kept(self):
        write(self.m("tmp"), b"payload", sync=True)
        os.rename(self.m("tmp"), self.m("final"))
        fsync_path(self.m())
        self.mount.cut()
        self.assertEqual(sorted(os.listdir(self.disk)), ["final", "folder", "old"])
        self.assertEqual(read(self.d("final")), b"payload")

    def test_rename_over_a_file_without_data_fsync_gives_an_empty_file(self):
        # The ext4 zero-length file: write a temporary, rename it over, fsync only the folder.
        write(self.m("tmp"), b"replacement")
        os.rename(self.m("tmp"), self.m("old"))
        fsync_path(self.m())
        self.mount.cut()
        self.assertEqual(read(self.d("old")), b"")

    def test_unlink_without_folder_fsync_comes_back(self):
        os.unlink(self.m("old"))
        os.unlink(self.m("folder", "kept"))
        fsync_path(self.m("folder"))
        self.assertFalse(os.path.exists(self.m("old")))
        self.mount.cut()
        self.assertEqual(read(self.d("old")), b"old data")
        self.assertFalse(os.path.exists(self.d("folder", "kept")))

    def test_new_folder_needs_its_parent_fsynced(self):
        os.mkdir(self.m("sub"), 0o700)
        write(self.m("sub", "f"), b"f", sync=True)
        fsync_path(self.m("sub"))
        self.mount.cut()
        self.assertFalse(os.path.exists(self.d("sub")))

    def test_new_folder_with_parent_fsynced_keeps_its_durable_entries(self):
        os.mkdir(self.m("sub"), 0o700)
        write(self.m("sub", "f"), b"f", sync=True)
        write(self.m("sub", "g"), b"g", sync=True)
        fsync_path(self.m("sub"))
        os.unlink(self.m("sub", "g"))
        fsync_path(self.m())
        self.mount.cut()
        self.assertEqual(sorted(os.listdir(self.d("sub"))), ["f", "g"])
        self.assertEqual(os.stat(self.d("sub")).st_mode & 0o777, 0o700)

    def test_beneath_descriptors_and_links(self):
        folder = os.open(self.m("folder"), os.O_RDONLY | os.O_DIRECTORY)
        try:
            fd = os.open("tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=folder)
            os.write(fd, b"linked")
            os.fsync(fd)
            os.close(fd)
            os.link("tmp", "name", src_dir_fd=folder, dst_dir_fd=folder)
            os.unlink("tmp", dir_fd=folder)
            os.rename("name", "renamed", src_dir_fd=folder, dst_dir_fd=folder)
            self.assertEqual(os.stat("renamed", dir_fd=folder, follow_symlinks=False).st_size, 6)
            os.symlink("/etc/passwd", "link", dir_fd=folder)
            self.assertTrue(os.path.islink(self.m("folder", "link")))
            with self.assertRaises(OSError):
                os.open("link", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=folder)
            with self.assertRaises(FileExistsError):
                os.open("renamed", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=folder)
            os.fsync(folder)
        finally:
            os.close(folder)
        self.mount.cut()
        self.assertEqual(sorted(os.listdir(self.d("folder"))), ["kept", "link", "renamed"])
        self.assertEqual(read(self.d("folder", "renamed")), b"linked")
        self.assertEqual(os.readlink(self.d("folder", "link")), "/etc/passwd")

    def test_seek_and_write_as_a_muxer_does(self):
        with open(self.m("movie"), "wb") as f:
            f.write(b"\0" * 8 + b"body" * 1000)
            f.seek(0)
            f.write(b"HEADER!!")
            f.seek(10000)
            f.write(b"tail")
            f.flush()
            os.fsync(f.fileno())
        fsync_path(self.m())
        expected = b"HEADER!!" + b"body" * 1000 + b"\0" * (10000 - 4008) + b"tail"
        self.assertEqual(read(self.m("movie")), expected)
        self.mount.cut()
        self.assertEqual(read(self.d("movie")), expected)

    def test_flock_excludes_another_process(self):
        with open(self.m("lock"), "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            other = subprocess.run(["flock", "-n", self.m("lock"), "true"])
            self.assertNotEqual(other.returncode, 0)
        self.assertEqual(subprocess.run(["flock", "-n", self.m("lock"), "true"]).returncode, 0)

    def test_shared_mmap_is_coherent_between_processes(self):
        write(self.m("shm"), b"\0" * 32768)
        with open(self.m("shm"), "r+b") as f:
            mapped = mmap.mmap(f.fileno(), 32768, mmap.MAP_SHARED)
            mapped[100:105] = b"hello"
            reader = subprocess.run([sys.executable, "-c",
                                     f"import mmap; f = open({self.m('shm')!r}, 'r+b'); "
                                     "m = mmap.mmap(f.fileno(), 32768, mmap.MAP_SHARED); print(m[100:105].decode())"],
                                    capture_output=True, text=True)
            self.assertEqual(reader.stdout.strip(), "hello")
            self.assertEqual(mapped[100:105], b"hello")
            mapped.close()

    def test_sqlite_wal_commits_reach_the_disk_only_when_synced(self):
        path = self.m("db.sqlite")
        keep = sqlite3.connect(path)  # held open: no checkpoint at close
        keep.execute("PRAGMA journal_mode=WAL")
        keep.execute("PRAGMA synchronous=FULL")
        keep.execute("CREATE TABLE t(x)")
        keep.execute("INSERT INTO t VALUES (1)")
        keep.commit()
        other = sqlite3.connect(path, timeout=5)  # a second connection reads it through the -shm
        self.assertEqual(other.execute("SELECT count(*) FROM t").fetchone()[0], 1)
        other.close()
        keep.execute("PRAGMA synchronous=NORMAL")
        keep.execute("INSERT INTO t VALUES (2)")  # NORMAL: the WAL is not fsynced at commit
        keep.commit()
        self.mount.cut()
        keep.close()
        survived = sqlite3.connect(self.d("db.sqlite"))
        self.assertEqual([row[0] for row in survived.execute("SELECT x FROM t")], [1])
        survived.close()

    def test_sync_makes_everything_durable(self):
        os.mkdir(self.m("sub"))
        write(self.m("sub", "a"), b"a")
        os.rename(self.m("old"), self.m("older"))
        self.mount.sync()
        self.mount.cut()
        self.assertEqual(read(self.d("sub", "a")), b"a")
        self.assertEqual(read(self.d("older")), b"old data")
        self.assertFalse(os.path.exists(self.d("old")))

    def test_write_back_of_everything_is_a_sync(self):
        os.mkdir(self.m("sub"))
        write(self.m("sub", "a"), b"a")
        os.unlink(self.m("old"))
        self.mount.cut(write_back=1.0)
        self.assertEqual(read(self.d("sub", "a")), b"a")
        self.assertFalse(os.path.exists(self.d("old")))

    def test_o_direct_is_durable_only_when_fsynced(self):
        block = b"d" * 4096
        fd = os.open(self.m("direct"), os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600)
        buffer = mmap.mmap(-1, 4096)  # O_DIRECT wants an aligned buffer
        buffer.write(block)
        os.write(fd, buffer)
        os.close(fd)
        fsync_path(self.m())
        self.assertEqual(read(self.m("direct")), block)
        self.mount.cut()
        self.assertEqual(read(self.d("direct")), b"")

    def test_after_the_cut_every_user_gets_errors(self):
        fd = os.open(self.m("open"), os.O_WRONLY | os.O_CREAT, 0o600)
        self.mount.cut()
        with self.assertRaises(OSError):
            os.write(fd, b"after")
        with self.assertRaises(OSError):  # ENOTCONN: even the close reaches a dead mount
            os.close(fd)
        self.assertFalse(os.path.ismount(self.mnt))


if __name__ == "__main__":
    if os.geteuid() != 0 or not os.path.exists("/dev/fuse"):
        sys.exit("test_lazyfs: needs root and /dev/fuse")
    unittest.main()
