// Package kinds holds the built-in step kinds, one per file, each registered
// from init(). Importing the package (blank) registers them all; adding a kind
// means adding one file here and touching nothing else.
//
// goto.go is the reference kind to copy: a Spec with its fields declared once,
// a short form, and a Run that only talks to step.Exec (and to the optional
// interfaces of step/exec.go it asks for with step.Need).
package kinds
