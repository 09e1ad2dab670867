/* A firmware-style program: answers one prompt with the model linked into it (libsaguaro_model.a), streaming the
 * answer to stdout. It opens no file: the weights, tokenizer and chat template are read-only data of the program.
 *
 *   firmware_example PROMPT [SEED]
 *
 * stdout: the answer's text as it is generated, then a newline; stderr: the response JSON (statistics). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saguaro_model.h"

/* The request's room; a prompt that does not fit is refused. */
#define MESSAGES_BYTES 4096
#define RESPONSE_BYTES 16384

/* Appends `text` to `out` (capacity `cap`, holding `*len` bytes) as the inside of a JSON string; 0 when it does not
 * fit. */
static int append_json_string(char* out, size_t cap, size_t* len, const char* text) {
  for (const unsigned char* p = (const unsigned char*)text; *p; ++p) {
    char esc[8];
    int n;
    if (*p == '"' || *p == '\\')
      n = snprintf(esc, sizeof esc, "\\%c", *p);
    else if (*p < 0x20)
      n = snprintf(esc, sizeof esc, "\\u%04x", *p);
    else
      n = snprintf(esc, sizeof esc, "%c", *p);
    if (*len + (size_t)n >= cap) return 0;
    memcpy(out + *len, esc, (size_t)n);
    *len += (size_t)n;
  }
  out[*len] = '\0';
  return 1;
}

static void print_piece(const char* text, uint32_t token_id, void* user_data) {
  (void)token_id, (void)user_data;
  fputs(text, stdout);
  fflush(stdout);
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: firmware_example PROMPT [SEED]\n");
    return 2;
  }
  static char messages[MESSAGES_BYTES], options[128], response[RESPONSE_BYTES];
  size_t len = (size_t)snprintf(messages, sizeof messages, "[{\"role\": \"user\", \"content\": \"");
  if (!append_json_string(messages, sizeof messages - 4, &len, argv[1])) {
    fprintf(stderr, "firmware_example: the prompt is longer than %d bytes\n", MESSAGES_BYTES - 64);
    return 2;
  }
  strcat(messages, "\"}]");
  const unsigned long long seed = argc == 3 ? strtoull(argv[2], NULL, 10) : 42;
  snprintf(options, sizeof options, "{\"max_tokens\": 32, \"temperature\": 0.8, \"seed\": %llu}", seed);

  saguaro_model_t model = saguaro_model_open_embedded();
  if (!model) {
    fprintf(stderr, "firmware_example: %s\n", saguaro_last_error());
    return 1;
  }
  const int n = saguaro_complete(model, messages, options, response, sizeof response, print_piece, NULL);
  fputc('\n', stdout);
  if (n < 0) fprintf(stderr, "firmware_example: %s\n", saguaro_last_error());
  else fprintf(stderr, "%s\n", response);
  saguaro_destroy(model);
  return n < 0;
}
