// Command my-api is an app of one's own, not the lab's docs/app.md app: the
// example docs/guard.md holds to a baseline and to another commit of
// itself (scripts/guard --against). It answers /up and /items, a catalogue
// page of 50 items as JSON, on 127.0.0.1:$PORT.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
)

type item struct {
	ID    int      `json:"id"`
	Name  string   `json:"name"`
	Price float64  `json:"price"`
	Tags  []string `json:"tags"`
}

type page struct {
	Items []item `json:"items"`
	Total int    `json:"total"`
}

func catalogue() page {
	p := page{Total: 50}
	for i := 1; i <= 50; i++ {
		p.Items = append(p.Items, item{ID: i, Name: fmt.Sprintf("item %d", i), Price: float64(i) * 1.25,
			Tags: []string{"tag-" + fmt.Sprint(i%7), "tag-" + fmt.Sprint(i%11)}})
	}
	return p
}

func handler() http.Handler {
	cat := catalogue()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /up", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		b, err := json.MarshalIndent(cat, "", "  ")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	return mux
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	log.Fatal(http.ListenAndServe("127.0.0.1:"+port, handler()))
}
