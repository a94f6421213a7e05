// As: errors.As without reflection. errors.As checks its target with the
// reflect-like internal/reflectlite, which under TinyGo keeps several KB of
// type-describing code in every module; a type parameter says the same
// at compile time.

package errs

// As finds the first error in err's tree (err itself, then what Unwrap
// answers, depth first through Unwrap() []error) that is a T, sets
// *target to it and reports true; an error with an As(any) bool method
// may answer for itself, as with errors.As. T is the error's type (a
// pointer type such as *SomeError, or an interface type).
func As[T any](err error, target *T) bool {
	for err != nil {
		if t, ok := err.(T); ok {
			*target = t
			return true
		}
		if x, ok := err.(interface{ As(any) bool }); ok && x.As(target) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if As(e, target) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}
