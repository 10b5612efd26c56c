package runguard

import (
	"os"
	"reflect"
	"strconv"
)

// fileID is what names a file to the kernel (device and inode where there
// are such): a directory renamed aside and another made in its place, or
// a symlink put there instead, is another file.
type fileID struct{ fi os.FileInfo }

func lstatID(p string) (fileID, error) {
	fi, err := os.Lstat(p)
	return fileID{fi}, err
}

func (a fileID) same(b fileID) bool {
	return a.fi != nil && b.fi != nil && a.fi.Mode().Type() == b.fi.Mode().Type() && os.SameFile(a.fi, b.fi)
}

// inode is the file's inode number where the OS has one ("" elsewhere),
// for a person looking for where a replaced directory went.
func inode(id fileID) string {
	if id.fi == nil {
		return ""
	}
	v := reflect.ValueOf(id.fi.Sys())
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		if f := v.Elem().FieldByName("Ino"); f.IsValid() && f.CanUint() {
			return strconv.FormatUint(f.Uint(), 10)
		}
	}
	return ""
}
