package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRoutes(t *testing.T) {
	h := handler()
	for path, want := range map[string]string{"/up": "ok", "/items": `"items":[{"id":1,`} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		// Compact or pretty-printed, the same JSON.
		if body := strings.Join(strings.Fields(rec.Body.String()), ""); rec.Code != 200 || !strings.Contains(body, want) {
			t.Errorf("%s: %d %q, want 200 with %q", path, rec.Code, rec.Body.String(), want)
		}
	}
}
