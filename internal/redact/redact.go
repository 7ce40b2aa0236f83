// Package redact hides the secrets a URL can carry (a password in its user
// information, keys in its query) before it is printed or put in an error.
package redact

import (
	"errors"
	"net/url"
	"strings"
)

// Mask stands for a hidden value.
const Mask = "***"

// URL returns raw with the password of its user information, a user name
// that stands alone (often a token), and every query value replaced by
// [Mask]; the query's names, the host and the path are kept, so the URL
// can still be recognised. A fragment is dropped. In text that does not
// parse as a URL, what comes between "://" and the last '@', and after the
// first '?', is masked.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" {
		return rough(raw)
	}
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + ":")
	}
	if u.Host != "" || u.User != nil || u.Scheme != "" {
		b.WriteString("//")
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			b.WriteString(url.PathEscape(u.User.Username()) + ":" + Mask)
		} else {
			b.WriteString(Mask)
		}
		b.WriteByte('@')
	}
	b.WriteString(u.Host)
	b.WriteString(u.EscapedPath())
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteByte('?')
		b.WriteString(Query(u.RawQuery))
	}
	return b.String()
}

// Query returns a raw query string with every value replaced by [Mask],
// names kept in their order: "key=K&v=2" becomes "key=***&v=***".
func Query(raw string) string {
	if raw == "" {
		return ""
	}
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		if name != "" || p != "" {
			parts[i] = name + "=" + Mask
		}
	}
	return strings.Join(parts, "&")
}

func rough(raw string) string {
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		raw = raw[:i+1] + Mask
	}
	if i := strings.LastIndexByte(raw, '@'); i >= 0 {
		start := 0
		if j := strings.Index(raw, "://"); j >= 0 && j < i {
			start = j + 3
		}
		raw = raw[:start] + Mask + raw[i:]
	}
	return raw
}

// Error returns err with every form of the URL raw in its message shown as
// [URL](raw) (net/http puts the URL in its errors, with the password
// replaced by "***"), keeping err for [errors.Is] and [errors.As]. An err
// whose message holds no secret of raw comes back as it is.
func Error(err error, raw string) error {
	if err == nil {
		return nil
	}
	shown := URL(raw)
	if shown == raw {
		return err
	}
	var forms []string
	if u, perr := url.Parse(raw); perr == nil {
		forms = append(forms, raw, u.String())
		if pw, ok := u.User.Password(); ok {
			// net/http's form: the password replaced by "***".
			forms = append(forms, strings.Replace(raw, ":"+pw+"@", ":"+Mask+"@", 1), strings.Replace(u.String(), ":"+url.PathEscape(pw)+"@", ":"+Mask+"@", 1))
		}
	} else {
		forms = append(forms, raw)
	}
	msg := err.Error()
	for _, f := range forms {
		if f != "" && strings.Contains(msg, f) {
			return &redacted{err: err, forms: forms, shown: shown}
		}
	}
	return err
}

type redacted struct {
	err   error
	forms []string
	shown string
}

func (e *redacted) Error() string {
	msg := e.err.Error()
	for _, f := range e.forms {
		if f != "" {
			msg = strings.ReplaceAll(msg, f, e.shown)
		}
	}
	return msg
}

func (e *redacted) Unwrap() error { return e.err }

// URLError hides the secrets of the URL in every *url.Error in err's chain
// (the error net/http's client returns, which names the request's URL). It
// changes those errors in place and returns err; call it before wrapping
// err, since a wrapper made with fmt.Errorf keeps the message it was made
// with.
func URLError(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if ue, ok := e.(*url.Error); ok {
			ue.URL = URL(ue.URL)
		}
	}
	return err
}
