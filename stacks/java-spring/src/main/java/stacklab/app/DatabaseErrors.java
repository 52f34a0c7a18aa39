package stacklab.app;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import stacklab.app.Answers.Failure;

/** A database error on any route is a 503 {"ok":false,"error":"…"} (docs/app.md's /bench/write rule). */
@RestControllerAdvice
class DatabaseErrors {

    @ExceptionHandler(DataAccessException.class)
    ResponseEntity<Failure> database(DataAccessException e) {
        String msg = e.getMostSpecificCause().getMessage();
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .contentType(MediaType.APPLICATION_JSON)
                .body(new Failure("database: " + (msg == null ? e.getClass().getSimpleName() : msg)));
    }
}
