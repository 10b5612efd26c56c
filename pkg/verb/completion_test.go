package verb_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jessevdk/go-flags"

	"github.com/burl-dev/burl/pkg/catalog"
)

// The shell completions are written by hand; this keeps them from falling
// behind the verbs and options the binaries accept.
func TestCompletionsOfferEveryVerbAndOption(t *testing.T) {
	dir := filepath.Join("..", "..", "contrib", "completion")
	shells := map[string]func(opt string) string{
		"git-burl.bash": func(o string) string { return "--" + o },
		"_git-burl":     func(o string) string { return "--" + o },
		"git-burl.fish": func(o string) string { return "-l " + o },
	}
	options := map[string][]string{}
	usageOpt := regexp.MustCompile(`--([a-z][a-z-]*)`)
	for _, v := range catalog.Verbs {
		for _, m := range usageOpt.FindAllStringSubmatch(v.Usage, -1) {
			options[v.Name] = append(options[v.Name], m[1])
		}
		if f, ok := constructors[v.Name]; ok {
			p := flags.NewParser(f(), flags.None)
			for _, o := range p.Command.Options() {
				if o.Hidden {
					// Named only to be refused (edit's scope flags).
					continue
				}
				options[v.Name] = append(options[v.Name], o.LongName)
			}
		}
	}
	for file, spell := range shells {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, v := range catalog.Verbs {
			if !regexp.MustCompile(`\b` + v.Name + `\b`).MatchString(text) {
				t.Errorf("%s does not offer the verb %s", file, v.Name)
			}
			for _, o := range options[v.Name] {
				if !strings.Contains(text, spell(o)) {
					t.Errorf("%s does not offer %s of %s", file, spell(o), v.Name)
				}
			}
		}
	}
}
