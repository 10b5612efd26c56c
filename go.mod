module github.com/burl-dev/burl

go 1.22

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/jessevdk/go-flags v1.6.1
	github.com/natefinch/atomic v1.0.1
	golang.org/x/sys v0.21.0
	gopkg.in/yaml.v3 v3.0.1
)
