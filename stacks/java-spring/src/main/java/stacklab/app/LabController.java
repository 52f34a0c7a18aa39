package stacklab.app;

import java.util.concurrent.CompletableFuture;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.ResponseBody;

import stacklab.app.Answers.BenchRead;
import stacklab.app.Answers.Failure;
import stacklab.app.Answers.Items;
import stacklab.app.Answers.Message;
import stacklab.app.Answers.Pragmas;
import stacklab.app.Answers.UpstreamOk;
import stacklab.app.Answers.Written;

/** Every route of docs/app.md. Unknown paths and wrong methods are Spring MVC's own 404 and 405. */
@Controller
class LabController {

    private static final Message HELLO = new Message("Hello, World!");

    private final Store store;
    private final Upstream upstream;

    LabController(Store store, Upstream upstream) {
        this.store = store;
        this.upstream = upstream;
    }

    @GetMapping(path = "/up", produces = MediaType.TEXT_PLAIN_VALUE)
    @ResponseBody
    String up() {
        return "ok";
    }

    @GetMapping(path = "/json", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    Message json() {
        return HELLO;
    }

    @GetMapping(path = "/items", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    Items items() {
        return new Items(store.newestItems());
    }

    /** templates/page.html, rendered by Thymeleaf's view resolver. */
    @GetMapping("/page")
    String page(Model model) {
        model.addAttribute("items", store.newestItems());
        return "page";
    }

    /**
     * One call to the upstream through the shared client. The request thread
     * goes back to Tomcat while the call is in flight (Servlet async), so 512
     * waiting calls do not need 512 threads.
     */
    @GetMapping(path = "/bench/upstream", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    CompletableFuture<ResponseEntity<Object>> benchUpstream() {
        return upstream.delay().handle((status, err) -> {
            if (err != null) {
                return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body(new Failure(Upstream.describe(err)));
            }
            if (status != 200) {
                return ResponseEntity.status(HttpStatus.BAD_GATEWAY).body(new Failure("upstream answered " + status));
            }
            return ResponseEntity.ok(new UpstreamOk(status));
        });
    }

    @PostMapping(path = "/bench/write", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    Written benchWrite() {
        return new Written(store.insertEvent());
    }

    @GetMapping(path = "/bench/read", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    BenchRead benchRead() {
        return store.latestEvents();
    }

    @GetMapping(path = "/bench/pragmas", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    Pragmas benchPragmas() {
        return store.pragmas();
    }
}
