module example.com/withdep

go 1.25

require github.com/google/jsonschema-go v0.4.3
