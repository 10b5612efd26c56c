module github.com/burl-dev/burl

go 1.22

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/jessevdk/go-flags v1.6.1 // indirect
	github.com/natefinch/atomic v1.0.1 // indirect
	golang.org/x/sys v0.21.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
